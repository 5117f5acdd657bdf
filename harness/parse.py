#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one guest boot's logs into per-case results.

RESULTS_LOG holds the sections framed by the guest's /init:
  ### BEGIN <name> ... ### END <name> rc=<n>   output of one test script
  ### KTAP <suite> ... ### ENDKTAP <suite>      one KUnit suite's KTAP
  ### DONE                                      all scripts ran
KTAP documents go through the kernel's kunit.py; the rest of a script's
output is read as kselftest-style TAP. CONSOLE_LOG is scanned for kernel
error reports. Prints one "STATUS name [detail]" line per case, then the
counts; exits 1 when anything failed.

Case names: kunit:<suite>.<case> (a parameterized case is one case, FAIL if
any parameter failed), tap:<script>.<description>, check:<what>.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

BEGIN_RE = re.compile(r'^### BEGIN (\S+)$')
END_RE = re.compile(r'^### END (\S+) rc=(-?\d+)$')
KTAP_RE = re.compile(r'^### KTAP (\S+)$')
ENDKTAP_RE = re.compile(r'^### ENDKTAP (\S+)$')
DONE_RE = re.compile(r'^### DONE$')
PLAN_RE = re.compile(r'^1\.\.(\d+)\b')
TAP_RE = re.compile(r'^(not ok|ok)\s+(\d+)\b\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
KSFT_SKIP = 4

# Console patterns that mean the kernel reported a problem.
CONSOLE_PATTERNS = [
	('oops', re.compile(r'\bOops\b')),
	('bug', re.compile(r'\bBUG:')),
	('warning', re.compile(r'\bWARNING:')),
	('cut-here', re.compile(r'-+\[ cut here \]')),
	('panic', re.compile(r'Kernel panic')),
	('kasan', re.compile(r'\bKASAN\b')),
	('ubsan', re.compile(r'\bUBSAN\b')),
	# Only leak reports, not kmemleak's start-up messages.
	('kmemleak', re.compile(r'kmemleak: .*(suspected memory leak|unreferenced)'
				r'|unreferenced object 0x')),
	('lockdep', re.compile(r'possible recursive locking|circular locking')),
	('hung-task', re.compile(r'INFO: task ')),
	('gpf', re.compile(r'general protection fault')),
	('call-trace', re.compile(r'Call Trace:')),
]
# A report ends at its end-trace line, or this many lines after its last hit.
REPORT_GAP = 100
END_TRACE_RE = re.compile(r'---\[ end (trace|Kernel panic)')


class Results:
	def __init__(self):
		self.cases = []

	def add(self, status, name, detail=''):
		self.cases.append({'name': name, 'status': status, 'detail': detail})

	def failed(self):
		return any(c['status'] == 'FAIL' for c in self.cases)


def read_lines(path):
	with open(path, 'r', errors='backslashreplace') as f:
		return [l.rstrip('\r\n').rstrip('\r') for l in f]


def split_results(lines):
	"""Returns (scripts, ktaps, done): scripts is a list of dicts with the
	name, rc (None without END) and TAP lines outside KTAP blocks; ktaps is
	a list of (suite, lines, complete)."""
	scripts, ktaps, done = [], [], False
	script, ktap = None, None
	for line in lines:
		if ktap is not None:
			m = ENDKTAP_RE.match(line)
			if m and m.group(1) == ktap[0]:
				ktaps.append((ktap[0], ktap[1], True))
				ktap = None
				continue
			if not (END_RE.match(line) or DONE_RE.match(line) or
				BEGIN_RE.match(line) or KTAP_RE.match(line)):
				ktap[1].append(line)
				continue
			# Another frame began inside a KTAP block: keep what we have.
			ktaps.append((ktap[0], ktap[1], False))
			ktap = None
		m = KTAP_RE.match(line)
		if m:
			ktap = (m.group(1), [])
			continue
		m = BEGIN_RE.match(line)
		if m:
			script = {'name': m.group(1), 'rc': None, 'lines': []}
			scripts.append(script)
			continue
		m = END_RE.match(line)
		if m:
			if script is not None and script['name'] == m.group(1):
				script['rc'] = int(m.group(2))
			script = None
			continue
		if DONE_RE.match(line):
			done = True
			continue
		if script is not None:
			script['lines'].append(line)
	if ktap is not None:
		ktaps.append((ktap[0], ktap[1], False))
	return scripts, ktaps, done


def kunit_status(group):
	"""One status for a parameterized case from its parameters."""
	statuses = [c['status'] for c in group['test_cases']]
	statuses += [kunit_status(g) for g in group['sub_groups']]
	if any(s not in ('PASS', 'SKIP') for s in statuses):
		return 'FAIL'
	if statuses and all(s == 'SKIP' for s in statuses):
		return 'SKIP'
	return 'PASS'


def parse_ktap(res, suite, lines, complete, kunit_py):
	prefix = 'kunit:' + suite
	if not complete:
		res.add('FAIL', prefix, 'KTAP block not terminated')
	with tempfile.TemporaryDirectory(prefix='kseries-parse.') as tmp:
		ktap_file = os.path.join(tmp, 'suite.ktap')
		json_file = os.path.join(tmp, 'suite.json')
		with open(ktap_file, 'w') as f:
			f.write('\n'.join(lines) + '\n')
		# kunit.py changes into the kernel tree: give absolute paths.
		proc = subprocess.run([sys.executable, kunit_py, 'parse',
				       '--json=' + json_file, ktap_file],
				      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
				      text=True, errors='backslashreplace')
		try:
			with open(json_file) as f:
				top = json.load(f)
		except (OSError, ValueError):
			top = None
	if top is None:
		res.add('FAIL', prefix, 'kunit.py parse failed: ' +
			proc.stdout.strip().replace('\n', ' | ')[-300:])
		return
	before = len(res.cases)
	# The top group is the document; its groups are suites (one here).
	# Cases the plan promised but never reported come back nameless.
	for group in top['sub_groups']:
		name = 'kunit:' + group['name']
		for i, case in enumerate(group['test_cases'], 1):
			res.add(case['status'] if case['status'] in ('PASS', 'SKIP')
				else 'FAIL', name + '.' + (case['name'] or
				'missing_%d' % i))
		for sub in group['sub_groups']:
			res.add(kunit_status(sub), name + '.' + sub['name'])
	# A suite without cases shows up as a bare case of the top group.
	for case in top['test_cases']:
		res.add(case['status'] if case['status'] in ('PASS', 'SKIP')
			else 'FAIL', 'kunit:' + case['name'])
	new = res.cases[before:]
	errors = [l for l in proc.stdout.splitlines() if '[ERROR]' in l]
	if proc.returncode != 0 and not any(c['status'] == 'FAIL' for c in new):
		detail = errors[0] if errors else 'kunit.py reported a failure'
		res.add('FAIL', prefix, re.sub(r'^\[[\d:]+\]\s*', '', detail))
	elif not new:
		res.add('FAIL', prefix, 'no test cases parsed')


def parse_script(res, script):
	name = 'tap:' + script['name']
	rc = script['rc']
	seen = {}
	tap = []
	plan = None
	for line in script['lines']:
		if line.startswith('Bail out!'):
			tap.append(('FAIL', name + '.bail_out', line))
			continue
		m = PLAN_RE.match(line)
		if m and plan is None:
			plan = int(m.group(1))
			continue
		m = TAP_RE.match(line)
		if not m:
			continue
		ok, num, desc, directive = m.groups()
		desc = re.sub(r'\s+', '_', desc.strip()) or num
		directive = (directive or '').strip().upper()
		if directive.startswith('SKIP'):
			status = 'SKIP'
		elif ok == 'ok' or directive.startswith('XFAIL'):
			status = 'PASS'
		else:
			status = 'FAIL'
		case = name + '.' + desc
		seen[case] = seen.get(case, 0) + 1
		if seen[case] > 1:
			case += '#%d' % seen[case]
		tap.append((status, case, ''))
	for status, case, detail in tap:
		res.add(status, case, detail)
	# A script that planned N cases must report N: fewer means it
	# stopped early, more that its plan is stale.
	if plan is not None and plan != len(tap) and rc is not None:
		res.add('FAIL', name + '.plan', '1..%d planned, %d reported' %
			(plan, len(tap)))
	if rc is None:
		res.add('FAIL', name, 'no END line (guest crashed or hung)')
	elif not tap:
		if rc == 0:
			res.add('PASS', name)
		elif rc == KSFT_SKIP:
			res.add('SKIP', name, 'rc=4')
		else:
			res.add('FAIL', name, 'rc=%d' % rc)
	elif rc not in (0, KSFT_SKIP) and not any(t[0] == 'FAIL' for t in tap):
		res.add('FAIL', name, 'rc=%d although all TAP cases passed' % rc)


def scan_console(res, lines):
	n = 0
	last_hit = None
	for i, line in enumerate(lines):
		if last_hit is not None and (END_TRACE_RE.search(line) or
					     i - last_hit > REPORT_GAP):
			closing = END_TRACE_RE.search(line)
			last_hit = None
			if closing:
				continue
		hit = next((k for k, r in CONSOLE_PATTERNS if r.search(line)), None)
		if hit is None:
			continue
		if last_hit is None:
			n += 1
			res.add('FAIL', 'check:console.%d.%s' % (n, hit),
				'"%s"' % line.strip()[:200])
		last_hit = i


def suite_of(case):
	"""The suite a case name belongs to: kunit:SUITE.CASE, or
	tap:NN-SCRIPT.sh[.CASE] for the guest script NN-SCRIPT.sh."""
	m = re.match(r'kunit:([^.]*)', case)
	if m:
		return m.group(1)
	m = re.match(r'tap:(?:[0-9]+-)?(.*?)\.sh(\.|$)', case)
	return m.group(1) if m else None


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument('console_log')
	ap.add_argument('results_log')
	ap.add_argument('--expect-suite', action='append', default=[],
			metavar='NAME', help='KUnit suite that must be present')
	ap.add_argument('--kunit-py', required=True,
			help='tools/testing/kunit/kunit.py of the kernel tree')
	ap.add_argument('--json', metavar='OUT', help='write the cases here')
	args = ap.parse_args()
	kunit_py = os.path.abspath(args.kunit_py)

	res = Results()
	try:
		results = read_lines(args.results_log)
	except OSError as e:
		results = []
		res.add('FAIL', 'check:results_log', str(e))
	scripts, ktaps, done = split_results(results)

	for suite, lines, complete in ktaps:
		parse_ktap(res, suite, lines, complete, kunit_py)
	for script in scripts:
		parse_script(res, script)

	# A guest script counts as a suite by its name without the number
	# prefix and extension: 05-system.sh is "system".
	suites = {s for s, _, _ in ktaps}
	for script in scripts:
		suites.add(re.sub(r'^[0-9]+-|\.sh$', '', script['name']))
	for want in args.expect_suite:
		if want not in suites:
			res.add('FAIL', 'check:suite.' + want, 'expected suite missing')
		elif not any(c['status'] != 'SKIP' and suite_of(c['name']) == want
			     for c in res.cases):
			# A script that skips as a whole (rc 4, a module that did
			# not load) must not pass for the suite it stands for;
			# one whose cases failed has failed already.
			res.add('FAIL', 'check:suite.' + want,
				'expected suite passed nothing (skipped as a whole)')
	if not done:
		res.add('FAIL', 'check:done', '### DONE missing (timeout or crash)')

	try:
		scan_console(res, read_lines(args.console_log))
	except OSError as e:
		res.add('FAIL', 'check:console_log', str(e))

	counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
	for c in res.cases:
		counts[c['status']] += 1
		print(('%s %s %s' % (c['status'], c['name'], c['detail'])).rstrip())
	print('total %d: %d passed, %d failed, %d skipped' %
	      (len(res.cases), counts['PASS'], counts['FAIL'], counts['SKIP']))

	if args.json:
		with open(args.json, 'w') as f:
			json.dump({'cases': res.cases, 'counts': counts}, f, indent=1)
			f.write('\n')
	return 1 if res.failed() else 0


if __name__ == '__main__':
	sys.exit(main())
