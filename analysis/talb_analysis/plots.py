"""PNG plots of a talb run or sweep (matplotlib, Agg backend: no display needed).

One figure per combination of the non-scheme grouping keys that the figure does not put on an
axis; the file name carries that combination (``fct_cdf_load=0.5.png``). No data, no figure.
"""
import hashlib
import os
import textwrap

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .stats import groups  # noqa: E402

TITLE_COLUMNS = 70  # a cell's parameters make long titles: wrapped to fit the figure
CROWDED_TICKS = 4  # more scheme names than this on an axis are slanted so that they do not meet
COLOURS = 10  # matplotlib's default colour cycle: schemes past it are drawn dashed
MAX_SUFFIX = 150  # characters of a cell in a file name: with the figure's name well under 255


def _suffix(names, values):
    """The file name part of a cell: its parameters, cut at MAX_SUFFIX characters with a digest
    of the whole when longer (a job list makes names past a file system's 255 bytes)."""
    parts = ['%s=%s' % (k, v) for k, v in zip(names, values)]
    text = ('_' + ','.join(parts)) if parts else ''
    text = ''.join(c if c.isalnum() or c in '=,._+-' else '_' for c in text)
    if len(text) > MAX_SUFFIX:
        digest = hashlib.sha1(text.encode()).hexdigest()[:10]
        text = text[:MAX_SUFFIX - len(digest) - 1] + '_' + digest
    return text


def _set_title(ax, base, names, values):
    """The figure's title with the cell it shows, wrapped: a cell's parameters run long."""
    extra = ', '.join('%s=%s' % (k, v) for k, v in zip(names, values))
    text = textwrap.fill(base + (' (%s)' % extra if extra else ''), TITLE_COLUMNS)
    ax.set_title(text, fontsize='small' if '\n' in text else 'medium')


def _legend(ax):
    """The schemes beside the axes, where they hide no data (an evaluation has a dozen)."""
    ax.legend(fontsize='small', loc='upper left', bbox_to_anchor=(1.01, 1.0), borderaxespad=0)


def _style(i):
    return '-' if i < COLOURS else '--'


def _save(fig, out, name):
    path = os.path.join(out, name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


class FctCurves:
    """The empirical CDF of flow completion time per scheme, log x axis: one figure per
    combination of the non-scheme keys. Called with each cell's flows (``stats.flow_tables``'
    ``each_cell``) it keeps only their sorted FCTs; :meth:`draw` then draws the figures."""

    def __init__(self, runs, keys):
        self.keys = list(keys)
        self.dtypes = runs[self.keys].dtypes.to_dict()
        self.cells, self.curves = [], []

    def __call__(self, values, flows):
        self.cells.append(values)
        self.curves.append(np.sort(flows['fct_ns'].to_numpy() / 1e3))

    def draw(self, out):
        others = [k for k in self.keys if k != 'scheme']
        cells = pd.DataFrame(self.cells, columns=self.keys).astype(self.dtypes)
        cells['curve'] = range(len(cells))
        paths = []
        for values, part in groups(cells, others):
            if part.empty:
                continue
            fig, ax = plt.subplots(figsize=(7.5, 4))
            for i, curve in enumerate(part.sort_values('scheme', kind='stable')['curve']):
                fct_us = self.curves[curve]
                cdf = np.arange(1, fct_us.size + 1) / fct_us.size
                ax.step(fct_us, cdf, where='post', label=cells.at[curve, 'scheme'],
                        linestyle=_style(i))
            ax.set_xscale('log')
            ax.set_xlabel('flow completion time (us)')
            ax.set_ylabel('fraction of flows')
            ax.set_ylim(0, 1.0)
            ax.grid(True, which='both', alpha=0.3)
            _legend(ax)
            _set_title(ax, 'FCT CDF', others, values)
            paths.append(_save(fig, out, 'fct_cdf%s.png' % _suffix(others, values)))
        return paths


def iteration_time(iterations, keys, out, x='bgLoad'):
    """Mean iteration time per scheme against ``x`` (or per scheme), 95 % CI error bars; with
    one run per point there are no bars, and the axis says 'one seed'."""
    others = [k for k in keys if k not in ('scheme', x)]
    table = iterations.dropna(subset=['iter_ms_mean'])
    paths = []
    for values, part in groups(table, others):
        if part.empty:
            continue
        fig, ax = plt.subplots(figsize=(7.5, 4))
        has_x = x in part.columns
        schemes = sorted(part['scheme'].unique())
        for i, scheme in enumerate(schemes):
            p = part[part['scheme'] == scheme]
            if has_x:
                p = p.sort_values(x)
            err = p['iter_ms_ci95'].fillna(0).to_numpy()
            if has_x:
                ax.errorbar(p[x], p['iter_ms_mean'], yerr=err, marker='o', capsize=3,
                            label=scheme, linestyle=_style(i))
            else:
                ax.bar(i, p['iter_ms_mean'], yerr=err, capsize=3, label=scheme)
        if has_x:
            ax.set_xlabel(x)
            _legend(ax)
        else:
            ax.set_xticks(range(len(schemes)))
            if len(schemes) > CROWDED_TICKS:
                ax.set_xticklabels(schemes, rotation=30, ha='right')
            else:
                ax.set_xticklabels(schemes)
            ax.set_xlabel('scheme')
        one_seed = part['runs'].max() < 2
        ax.set_ylabel('mean iteration time (ms), ' + ('one seed' if one_seed else '95 % CI'))
        ax.set_ylim(bottom=0)
        ax.grid(True, axis='y', alpha=0.3)
        _set_title(ax, 'Iteration time', others, values)
        name = 'iteration_time_vs_%s' % x if has_x else 'iteration_time'
        paths.append(_save(fig, out, '%s%s.png' % (name, _suffix(others, values))))
    return paths


def priority_tail(by_priority, keys, out):
    """p99 FCT per priority class (-1 = background), one bar per scheme."""
    others = [k for k in keys if k != 'scheme']
    paths = []
    for values, part in groups(by_priority, others):
        if part.empty:
            continue
        fig, ax = plt.subplots(figsize=(7.5, 4))
        priorities = sorted(part['priority'].unique())
        schemes = sorted(part['scheme'].unique())
        width = 0.8 / max(len(schemes), 1)
        for i, scheme in enumerate(schemes):
            p = part[part['scheme'] == scheme].set_index('priority').reindex(priorities)
            pos = np.arange(len(priorities)) + (i - (len(schemes) - 1) / 2) * width
            ax.bar(pos, p['fct_p99_us'], width, label=scheme,
                   hatch=None if i < COLOURS else '//')
        ax.set_xticks(range(len(priorities)))
        ax.set_xticklabels(['bg' if p < 0 else str(p) for p in priorities])
        ax.set_xlabel('priority class (0 = most urgent, bg = background)')
        ax.set_ylabel('p99 FCT (us)')
        ax.set_yscale('log')
        ax.grid(True, axis='y', which='both', alpha=0.3)
        _legend(ax)
        _set_title(ax, 'p99 FCT per priority', others, values)
        paths.append(_save(fig, out, 'fct_p99_by_priority%s.png' % _suffix(others, values)))
    return paths
