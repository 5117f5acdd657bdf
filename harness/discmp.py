#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two `objdump -dr --no-show-raw-insn` listings function by
function: every function of BEFORE must be in AFTER with the same
instructions and relocations.  Addresses are dropped (a function added
elsewhere in the object moves the others), and branch and call targets
are compared by symbol and offset.  In a relocatable object a call to
another object's function reads "call <self+off>" and only its
relocation names the callee, so relocations count: by symbol and
addend, or, against a section symbol (.rodata+0x40), by section alone,
since data or code added elsewhere moves such offsets.  Prints the
functions AFTER adds; exits 1 and prints the first difference when a
function of BEFORE changed or is missing."""
import re
import sys

HEAD = re.compile(r'^[0-9a-f]+ <(.+)>:$')
INSN = re.compile(r'^\s*[0-9a-f]+:\s*(.*)$')
TARGET = re.compile(r'\b[0-9a-f]+ <')
RELOC = re.compile(r'^(R_\S+)\s+(\S+?)([+-]0x[0-9a-f]+)?$')


def insn(text):
	"""An instruction or relocation line without what moves."""
	text = text.strip()
	m = RELOC.match(text)
	if m:
		kind, sym, addend = m.groups()
		return kind + ' ' + sym + ('' if sym.startswith('.') else addend or '')
	return TARGET.sub('<', text).strip()


def functions(path):
	out, name = {}, None
	with open(path) as f:
		for line in f:
			line = line.rstrip('\n')
			m = HEAD.match(line)
			if m:
				name = m.group(1)
				out[name] = []
				continue
			m = INSN.match(line)
			if name and m:
				out[name].append(insn(m.group(1)))
	return out


def main():
	before, after = functions(sys.argv[1]), functions(sys.argv[2])
	added = [f for f in after if f not in before]
	bad = 0
	for f, insns in before.items():
		if after.get(f) == insns:
			continue
		bad += 1
		if bad == 1:
			print('%s differs:' % f)
			for a, b in zip(insns, after.get(f, [])):
				if a != b:
					print('  - %s\n  + %s' % (a, b))
					break
			else:
				print('  %d instructions before, %d after' % (
					len(insns), len(after.get(f, []))))
	print('%d functions compared, %d differ; added: %s' % (
		len(before), bad, ' '.join(added) or 'none'))
	return 1 if bad else 0


if __name__ == '__main__':
	sys.exit(main())
