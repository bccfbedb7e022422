#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""focus-bench's figures from the raw files a run left (bench/focus-bench-guest.sh, or
bench/focus-bench.sh --host-smoke): a table on stdout, the figures as JSON and a plot (PNG) of
every frame's interval over the run, one line per configuration.

    focus-bench-report.py RUN_DIR [--json FILE] [--png FILE]

RUN_DIR holds run.json and one folder per configuration with frames.json (bench/frame-app.c's),
weights (the units' cpu.weight mid-run) and one file per background process ("ITERATIONS SECONDS").
Goals are printed as met or missed, never asserted: the exit status is non-zero only when a file is
missing or broken.
"""
import json
import os
import statistics
import sys

ORDER = ['stock', 'fair', 'boost', 'guard', 'host']
LABELS = {
    'stock': 'stock (no drop-ins, no daemon)',
    'fair': 'fair by default (drop-ins)',
    'boost': '+ focus boost (daemon, sway focus, guard off)',
    'guard': '+ guard (daemon, boost and guard)',
    'host': 'host smoke (no systemd)',
}


def percentile(values, p):
    if not values:
        return float('nan')
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def config_figures(path):
    with open(os.path.join(path, 'frames.json')) as f:
        frames = json.load(f)
    intervals = frames['frame_intervals_ms']
    if not intervals:
        raise ValueError(f'{path}/frames.json: no frames recorded')
    worst = sorted(intervals)[-max(1, len(intervals) // 100):]
    work = 0.0
    processes = 0
    for name in os.listdir(path):
        if name in ('frames.json', 'weights', 'load-running', 'actions.json'):
            continue
        with open(os.path.join(path, name)) as f:
            iterations, seconds = f.read().split()
        work += int(iterations) / float(seconds)
        processes += 1
    weights = {}
    if os.path.exists(os.path.join(path, 'weights')):
        with open(os.path.join(path, 'weights')) as f:
            weights = dict(line.split() for line in f if line.strip())
    guard = None
    if os.path.exists(os.path.join(path, 'actions.json')):
        with open(os.path.join(path, 'actions.json')) as f:
            actions = json.load(f)
        steps = [a for a in actions if a.get('Kind') == 'guard']
        closest = None
        by_unit = {}
        for a in steps:
            by_unit.setdefault(a['Unit'], []).append(a['Time'] / 1e6)
        for times in by_unit.values():
            times.sort()
            for t0, t1 in zip(times, times[1:]):
                closest = t1 - t0 if closest is None else min(closest, t1 - t0)
        guard = {'steps': len(steps), 'apps': len(by_unit), 'closest_s': closest}
    return {
        'guard': guard,
        'frames': len(intervals),
        'ticks': frames['ticks'],
        'missed': frames['missed'],
        'missed_share': frames['missed'] / frames['ticks'] if frames['ticks'] else float('nan'),
        'p50_ms': statistics.median(intervals),
        'p99_ms': percentile(intervals, 99),
        'low_1pct_fps': 1000 / statistics.mean(worst),
        'input_p99_ms': percentile(frames['input_delays_ms'], 99),
        'background_processes': processes,
        'background_work_per_s': work,
        'cpu_weight': weights,
        'period_ms': 1000 / frames['hz'],
        'times_ms': frames['frame_times_ms'],
        'intervals_ms': intervals,
    }


def goals(figures):
    """The goals, with the configuration that stands for 'the daemon' (the guard when it ran)."""
    out = []
    stock = figures.get('stock')
    daemon_name = 'guard' if 'guard' in figures else 'boost'
    daemon = figures.get(daemon_name)
    if stock and daemon:
        limit = stock['missed'] / 5
        out.append((f'missed frames, {daemon_name} against stock: at most a fifth',
                    f"{daemon['missed']} against {stock['missed']} (at most {limit:.1f})",
                    daemon['missed'] <= limit))
        bound = 1.5 * daemon['period_ms']
        out.append((f'p99 frame interval, {daemon_name}: within 1.5 frame periods ({bound:.1f} ms)',
                    f"{daemon['p99_ms']:.1f} ms", daemon['p99_ms'] <= bound))
    boost = figures.get('boost')
    guard = figures.get('guard')
    if guard and boost:
        # with no step of the guard the two runs differ only by chance
        acted = not guard['guard'] or guard['guard']['steps'] > 0
        idle = '' if acted else ' (the guard took no step)'
        out.append(('the guard against the static boost: fewer missed frames',
                    f"{guard['missed']} against {boost['missed']}{idle}",
                    guard['missed'] < boost['missed'] if acted else None))
        share = guard['background_work_per_s'] / boost['background_work_per_s']
        out.append(('the guard against the static boost: the background keeps at least 60 % of its work',
                    f'{100 * share:.0f} %{idle}', share >= 0.6 if acted else None))
    if guard and guard['guard']:
        g = guard['guard']
        closest = g['closest_s']
        out.append(('the guard never oscillates: at most one weight change per app per 2 s',
                    f"{g['steps']} steps on {g['apps']} apps, closest two of one app "
                    + ('-' if closest is None else f'{closest:.2f} s apart'),
                    None if closest is None else closest >= 1.9))
    if boost and boost['guard'] and boost['guard']['steps']:
        out.append(('with the guard off (boost), no guard step', f"{boost['guard']['steps']} steps", False))
    if not guard and stock:
        out.append(('the guard against the static boost: fewer missed frames, background keeps 60 %',
                    'not run', None))
    return out


def plot(figures, png):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('focus-bench-report: no plot: python3-matplotlib is not installed '
              '(tools/install-deps.sh installs it)', file=sys.stderr)
        return False
    period = next(iter(figures.values()))['period_ms']
    top = max(6 * period, min(200, max(max(f['intervals_ms']) for f in figures.values()) * 1.05))
    fig, axes = plt.subplots(len(figures), 1, figsize=(10, 1.2 + 1.9 * len(figures)), dpi=100,
                             sharex=True, sharey=True, squeeze=False)
    for ax, (name, f) in zip(axes[:, 0], figures.items()):
        ax.plot([t / 1000 for t in f['times_ms']], f['intervals_ms'], linewidth=0.7)
        ax.axhline(period, color='grey', linestyle=':', linewidth=0.8)
        ax.set_ylim(0, top)
        ax.set_ylabel('ms')
        ax.set_title(f"{LABELS.get(name, name)}: p99 {f['p99_ms']:.1f} ms, {f['missed']} of "
                     f"{f['ticks']} frames missed", fontsize=9, loc='left')
    axes[-1, 0].set_xlabel('time in the measured run (s)')
    fig.suptitle('focus-bench: the focused app\'s frame intervals under load (60 Hz: 16.7 ms, dotted)')
    fig.tight_layout()
    fig.savefig(png)
    return True


def main(argv):
    if len(argv) < 2 or argv[1].startswith('-'):
        print(__doc__, file=sys.stderr)
        return 2
    run = argv[1]
    out_json = argv[argv.index('--json') + 1] if '--json' in argv else None
    out_png = argv[argv.index('--png') + 1] if '--png' in argv else None
    with open(os.path.join(run, 'run.json')) as f:
        meta = json.load(f)
    names = [n for n in ORDER if os.path.isdir(os.path.join(run, n))]
    if not names:
        print(f'focus-bench-report: no configuration folder in {run}', file=sys.stderr)
        return 1
    figures = {n: config_figures(os.path.join(run, n)) for n in names}
    base = figures[names[0]]['background_work_per_s']

    print(f"focus-bench: {meta.get('cpus')} CPUs, kernel {meta.get('kernel')}, "
          f"{meta.get('build_processes')} build processes, a frame's work "
          f"{meta.get('frame_iterations', 0) / max(1, meta.get('iterations_per_ms', 1)):.1f} ms alone")
    print()
    print('| configuration | cpu.weight frame app / build / indexer | p50 frame | p99 frame | 1% low | '
          'missed frames | input p99 | background work |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for n in names:
        f = figures[n]
        w = f['cpu_weight']
        weights = ' / '.join(w.get(k, '-') for k in ('frames', 'build', 'indexer')) if w else '-'
        print(f"| {LABELS.get(n, n)} | {weights} | {f['p50_ms']:.1f} ms | {f['p99_ms']:.1f} ms | "
              f"{f['low_1pct_fps']:.0f} fps | {f['missed']} of {f['ticks']} ({100 * f['missed_share']:.1f} %) | "
              f"{f['input_p99_ms']:.1f} ms | {f['background_work_per_s'] / 1e6:.0f} M/s "
              f"({100 * f['background_work_per_s'] / base:.0f} %) |")
    print()
    for what, figure, met in goals(figures):
        state = ('not run' if figure in ('not run', 'not built') else 'not exercised') if met is None \
            else ('met' if met else 'missed')
        print(f'goal: {what}: {figure}: {state}')

    if out_json:
        slim = {n: {k: v for k, v in f.items() if k not in ('times_ms', 'intervals_ms')}
                for n, f in figures.items()}
        with open(out_json, 'w') as f:
            json.dump({'run': meta, 'configurations': slim,
                       'goals': [{'goal': g, 'figure': fig, 'met': m} for g, fig, m in goals(figures)]},
                      f, indent=1)
        print(f'figures: {out_json}')
    if out_png:
        if not plot(figures, out_png):
            return 1
        print(f'plot: {out_png}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
