# Instructions of get_kprobe_cached() along its hit and bypass paths in
# the listings of this directory (address ranges read off the listings).
# Usage: python3 count.py [DIR]
import re,sys
def load(f):
    ins=[]
    for l in open(f):
        m=re.match(r'^\s+([0-9a-f]+):\t(\S+)',l)
        if m: ins.append((int(m.group(1),16),m.group(2)))
    return ins
def count(f,ranges):
    ins=load(f); n=0; ops=[]
    for a,b in ranges:
        a=int(a,16); b=int(b,16)
        sel=[(x,o) for x,o in ins if a<=x<=b]
        n+=len(sel); ops+= [o for x,o in sel]
    return n, ops.count('push'), ops.count('pop')
P={
 'patch31-O2 hit':('patch31-O2.txt',[('280','2b3'),('2b9','304'),('39b','39f'),('314','335')]),
 'patch31-O2 bypass':('patch31-O2.txt',[('280','2b3'),('33a','354')]),
 'patch32-O2 hit':('patch32-O2.txt',[('2f0','318'),('31a','361'),('3a4','3a8'),('36d','386')]),
 'patch32-O2 bypass':('patch32-O2.txt',[('2f0','318'),('38b','39a')]),
 'patch31-Os hit':('patch31-Os.txt',[('282','2a3'),('2b9','30a'),('30c','310'),('31b','334'),('368','370')]),
 'patch31-Os bypass':('patch31-Os.txt',[('282','2b4')]),
 'patch32-Os hit':('patch32-Os.txt',[('2f3','313'),('329','370'),('372','376'),('381','38f'),('396','39e')]),
 'patch32-Os bypass':('patch32-Os.txt',[('2f3','324')]),
}
import os
d=sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for k,(f,r) in P.items():
    print('%-20s instructions %2d  push %d  pop %d'%((k,)+count(os.path.join(d,f),r)))
