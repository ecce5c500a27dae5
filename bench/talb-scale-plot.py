#!/usr/bin/python3
"""Plot the scale curve written by bench/talb-scale.sh: wall time and peak RSS against hosts, and
wall time against packet-hops (linear cost = a straight line of slope 1 on the log-log axes).
One series per binary (Debian's ns-3 or the optimized tree); the last row of each point wins.

usage: talb-scale-plot.py SCALE_CSV OUT_PNG
"""
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    df = pd.read_csv(argv[1])
    df = df.dropna(subset=['wall_s'])
    if df.empty:
        print('talb-scale-plot: %s has no completed point' % argv[1], file=sys.stderr)
        return 1
    df = df.drop_duplicates(subset=['binary', 'hosts'], keep='last').sort_values('hosts')
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for binary, g in df.groupby('binary'):
        label = 'optimized ns-3' if '-optimized' in binary or 'talb-fast' in binary else 'Debian ns-3'
        axes[0].plot(g['hosts'], g['wall_s'], 'o-', label=label)
        axes[1].plot(g['packet_hops'], g['wall_s'], 'o-', label=label)
        axes[2].plot(g['hosts'], g['peak_rss_mib'], 'o-', label=label)
        for _, r in g.iterrows():
            if str(r['complete']).lower() != 'true':
                axes[0].annotate('incomplete', (r['hosts'], r['wall_s']), fontsize=7)
    axes[0].set(xscale='log', yscale='log', xlabel='hosts (one job, all hosts)',
                ylabel='wall time (s)', title='wall time per iteration')
    axes[1].set(xscale='log', yscale='log', xlabel='packet-hops simulated', ylabel='wall time (s)',
                title='cost against packets')
    axes[2].set(xscale='log', xlabel='hosts', ylabel='peak RSS (MiB)', title='memory')
    first = df.iloc[0]
    fig.suptitle('talb scale curve: one %s iteration (%s scheduler) at %s, %s cores' %
                 (first['model'], first['scheduler'], first['rate'], first['cores']))
    hosts = sorted(df['hosts'].unique())
    for ax in (axes[0], axes[2]):
        ax.set_xticks(hosts)
        ax.set_xticklabels([str(h) for h in hosts])
        ax.minorticks_off()
    for ax in axes:
        ax.grid(True, which='both', alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
