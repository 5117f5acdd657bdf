#!/usr/bin/env python3
# Why the index costs more instructions at N = 1 than at N = 40,000 in the
# icount run: the benchmark's probed functions are back to back at one
# stride, and the index's first slot is the top bits of a multiplication
# by the golden ratio (hash_ptr), so its keys form an arithmetic sequence
# whose clustering under linear probing depends on the stride and the
# table size. Mean slots read per successful lookup, every key looked up
# once, for 4,097 keys in 8,192 slots (the N = 1 phase) and 44,096 in
# 65,536 (N = 40,000), at three strides and for random 16-byte aligned
# addresses. Usage: index-stride.py (no arguments, a few seconds).
G=0x61C8864680B583EB; M=(1<<64)-1
def hp(a,bits): return (((a*G)&M)>>(64-bits))
def probe_len(keys,bits):
    size=1<<bits; slots=[None]*size
    for a in keys:
        i=hp(a,bits+3)>>3
        while slots[i] is not None: i=(i+1)&(size-1)
        slots[i]=a
    tot=0
    for a in keys:
        i=hp(a,bits+3)>>3; n=1
        while slots[i]!=a: i=(i+1)&(size-1); n+=1
        tot+=n
    return tot/len(keys)
import random
base=0xffffffffc0010000
for stride in (37,48,64):
    k1=[base+stride*i for i in range(4097)]
    k2=[base+stride*i for i in range(44096)]
    print(stride, "N=1 phase 4097 keys in 8192:", round(probe_len(k1,13),2), " N=40000 phase 44096 in 65536:", round(probe_len(k2,16),2))
rk=random.Random(1).sample(range(1<<22),44096)
print("random 4097/8192:", round(probe_len([base+16*k for k in rk[:4097]],13),2), "44096/65536:", round(probe_len([base+16*k for k in rk],16),2))
