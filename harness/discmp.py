#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two `objdump -d --no-show-raw-insn` listings function by
function: every function of BEFORE must be in AFTER with the same
instructions.  Addresses are dropped (a function added elsewhere in the
object moves the others), and branch and call targets are compared by
symbol and offset.  Prints the functions AFTER adds; exits 1 and prints
the first difference when a function of BEFORE changed or is missing."""
import re
import sys

HEAD = re.compile(r'^[0-9a-f]+ <(.+)>:$')
INSN = re.compile(r'^\s*[0-9a-f]+:\s*(.*)$')
TARGET = re.compile(r'\b[0-9a-f]+ <')


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
				out[name].append(TARGET.sub('<', m.group(1)).strip())
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
