# SPDX-License-Identifier: LGPL-2.1-or-later
'''The goals of the product and the budget each new
capability states before it is built, each judged against the figures of one
benchmark run.  bench.py prints them; bench/README.md gives the reasons.

A capability that is not built has no figure: its row says "not built", which
is neither met nor missed; one measured by a bench of its own (its world is a
test's fake kernel) names that bench.  When it is built, its measurement stores
figures[KEY] = {'wakeups_at_rest': n, 'rss_anon_kib_at_1000': kib,
'cpu_ms_per_event': ms} and the row compares those with the budget.
'''

LIST_RATIO = 20.0           # ListApps at least 20x faster than a client alone, 1,000 apps
WRITE_RATIO = 1.3           # SetWeight at most 1.3x the direct SetUnitProperties
RSS_KIB = 3072              # RssAnon at most 3 MiB at 1,000 apps
FIRST_ANSWER_MS = 6000      # first ListApps answered at most 6 s after the start, 1,000 apps
WAKEUPS_AT_REST = 0

# What each coming capability may add, at most (the reasons are in bench/README.md). Wake-ups and
# memory are the VM's figures: wake-ups of the daemon at rest with the capability armed, RssAnon
# it adds at 1,000 apps. CPU is the daemon's CPU time for one event on the host mock.
CAPABILITIES = (
    {'key': 'energy_ledger', 'name': 'energy ledger', 'wakeups_at_rest': 0,
     'rss_anon_kib_at_1000': 64, 'cpu_ms_per_event': 5.0, 'history_kib_at_1000': 2048,
     'event': 'one sample (a UPower update) over 1,000 apps; wake-ups on AC with a battery, '
              'host mock'},
    {'key': 'responsiveness_guard', 'name': 'responsiveness guard', 'wakeups_at_rest': 0,
     'rss_anon_kib_at_1000': 16, 'cpu_ms_per_event': 5.0, 'measured_by': 'bench/guard_bench.py',
     'event': 'one CPU pressure event and its step'},
    {'key': 'memory_ladder', 'name': 'memory ladder', 'wakeups_at_rest': 0,
     'rss_anon_kib_at_1000': 16, 'cpu_ms_per_event': 5.0, 'measured_by': 'bench/ladder_bench.py',
     'event': 'one check under memory pressure and its steps'},
    {'key': 'action_record', 'name': 'action record and pause', 'wakeups_at_rest': 0,
     'rss_anon_kib_at_1000': 128, 'cpu_ms_per_event': 0.2,
     'event': 'one automatic change recorded (journal, ring, ActionTaken)'},
)

BUDGET_COLUMNS = (
    ('wakeups_at_rest', 'wake-ups at rest (VM)', '', lambda v, b: v <= b),
    ('rss_anon_kib_at_1000', 'RssAnon added, 1,000 apps', ' KiB', lambda v, b: v <= b),
    ('cpu_ms_per_event', 'CPU per event (host mock)', ' ms', lambda v, b: v <= b),
    ('history_kib_at_1000', 'history file, 1,000 AppIDs', ' KiB', lambda v, b: v <= b),
)


def capability(key):
    '''The budgets of one capability, by its key.'''
    return next(cap for cap in CAPABILITIES if cap['key'] == key)


def _goal(name, target, value, met, unit=''):
    if value is None:
        return {'goal': name, 'target': target, 'value': 'not measured in this run', 'unit': '',
                'status': 'n/a'}
    return {'goal': name, 'target': target, 'value': value, 'unit': unit,
            'status': 'met' if met else 'missed'}


def goals(fig):
    '''The product's goals with this run's figures, met or missed.'''
    out = []
    # the goals hold at 1,000 apps: a run that stopped short of that does not judge them
    big = fig['list_apps'][-1] if fig.get('list_apps') else None
    if big is None or int(big['apps']) != 1000:
        big = None
    start = fig.get('start_full') if big is not None else None
    ms = start['start_to_first_list_apps_ms'] if start else None
    # the bench starts the daemon itself; D-Bus activation is timed by the system test section scale
    out.append(_goal(f'first ListApps answered after the start, {start["apps"] if start else 1000} apps',
                     f'<= {FIRST_ANSWER_MS / 1000:g} s', None if ms is None else round(ms / 1000, 2),
                     ms is not None and ms <= FIRST_ANSWER_MS, 's'))
    out.append(_goal('ListApps p50 vs a client alone, 1,000 apps',
                     f'>= {LIST_RATIO:g}x faster', big['ratio_p50'] if big else None,
                     big is not None and big['ratio_p50'] >= LIST_RATIO, 'x'))
    rss = fig['memory']['1000']['RssAnon_kib'] if big is not None else None
    out.append(_goal('RssAnon, 1,000 apps', f'<= {RSS_KIB} KiB', rss,
                     rss is not None and rss <= RSS_KIB, 'KiB'))
    idle = fig.get('idle')
    wake = (idle['voluntary_ctxt_switches'] + idle['nonvoluntary_ctxt_switches']) if idle else None
    out.append(_goal(f'wake-ups at rest over {idle["seconds"] if idle else "-"} s, '
                     f'{idle["apps"] if idle else "-"} apps, no client',
                     f'{WAKEUPS_AT_REST}', wake, wake is not None and wake <= WAKEUPS_AT_REST,
                     'context switches'))
    sw = fig.get('set_weight')
    out.append(_goal('SetWeight p50 vs direct SetUnitProperties', f'<= {WRITE_RATIO:g}x',
                     sw['ratio_vs_direct_p50'] if sw else None,
                     sw is not None and sw['ratio_vs_direct_p50'] <= WRITE_RATIO, 'x'))
    return out


def budget_rows(fig):
    '''One row per capability and budget: (capability, budget name, budget, figure, status).'''
    rows = []
    for cap in CAPABILITIES:
        measured = fig.get(cap['key'])
        for key, label, unit, within in BUDGET_COLUMNS:
            if key not in cap:
                continue
            budget = cap[key]
            if measured is None or measured.get(key) is None:
                # built, but this run did not measure that figure (or not at 1,000 apps)
                if measured is not None:
                    figure = 'not measured'
                elif 'measured_by' in cap:
                    figure = f'measured by {cap["measured_by"]}'
                else:
                    figure = 'not built'
                rows.append((cap['name'], label, f'{budget:g}{unit}', figure, ''))
                continue
            value = measured[key]
            rows.append((cap['name'], label, f'{budget:g}{unit}', f'{value:g}{unit}',
                         'met' if within(value, budget) else 'missed'))
    return rows


def print_goals_and_budgets(fig, p):
    p('Goals (bench/README.md), judged on this run\'s figures')
    for g in goals(fig):
        value = f'{g["value"]} {g["unit"]}'.rstrip()
        p(f'  [{g["status"].upper():>6}] {g["goal"]}: {value} (goal {g["target"]})')
    p()
    p('Budgets of the capabilities to come, each beside its figure')
    p(f'  {"capability":<24} {"budget of":<27} {"budget":>10} {"figure":>10}')
    for cap, label, budget, value, status in budget_rows(fig):
        p(f'  {cap:<24} {label:<27} {budget:>10} {value:>10} {status}'.rstrip())
    for cap in CAPABILITIES:
        p(f'  {cap["name"]}: an event is {cap["event"]}')
