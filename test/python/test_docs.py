"""The documentation parses as reStructuredText without a warning: a table whose text runs into
a column margin, or a section title at an inconsistent level, is an error that Sphinx (ns-3's doc
build) reports too, and the page renders wrong."""
import io
import os

import pytest

from conftest import ROOT

try:
    import docutils.core
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles
except ImportError:  # scripts/install-deps.sh installs python3-docutils; CI must run this test
    if os.environ.get('CI'):
        raise
    pytest.skip('python3-docutils is not installed', allow_module_level=True)


class SphinxHighlight(Directive):
    """Sphinx's ``.. highlight::`` (the language of literal blocks): nothing to check."""
    required_arguments = 1

    def run(self):
        return []


directives.register_directive('highlight', SphinxHighlight)
for sphinx_role in ('doc', 'ref'):  # cross-references Sphinx resolves
    roles.register_generic_role(sphinx_role, nodes.literal)

DOC = os.path.join(ROOT, 'doc')
# talb.rst includes every other page.
PAGES = sorted(f for f in os.listdir(DOC) if f.endswith('.rst'))


def parse_warnings(path):
    stream = io.StringIO()
    with open(path) as f:
        docutils.core.publish_doctree(
            f.read(), source_path=path,
            settings_overrides={'warning_stream': stream, 'report_level': 2, 'halt_level': 5})
    return stream.getvalue()


def test_the_manual_parses_without_warnings():
    assert parse_warnings(os.path.join(DOC, 'talb.rst')) == ''


def test_every_page_is_in_the_manual():
    with open(os.path.join(DOC, 'talb.rst')) as f:
        text = f.read()
    missing = [p for p in PAGES if p != 'talb.rst' and '.. include:: %s' % p not in text]
    assert not missing


def test_a_malformed_table_is_reported(tmp_path):
    page = tmp_path / 'bad.rst'
    page.write_text('=====  =====\na      b\n=====  =====\nlonger text  x\n=====  =====\n')
    assert 'Malformed table' in parse_warnings(str(page))
