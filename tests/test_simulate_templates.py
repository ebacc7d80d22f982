"""How the balance lab's report templates print: every value shown and escaped, the parts'
template laid out on lines that the page does not keep."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from critter_kitchen.simulate.html import LaidOut, _environment, render_html


def test_every_printed_value_is_shown_and_escaped_and_only_macros_print_markup():
    template = _environment().from_string("{% macro b() %}<b>{{ x }}</b>{% endmacro %}{{ x }}|{{ b() }}|{{ n }}")
    page = template.render(x="<i>'\"&\x1b\u202e", n=None)
    escaped = "&lt;i&gt;&#x27;&quot;&amp;\\x1b\\u202e"
    assert page == f"{escaped}|<b>{escaped}</b>|None"


def test_the_parts_template_keeps_spaces_in_sentences_and_none_between_tags():
    lines = ['<p class="a"', '    id="b">', "  One", "  two {{ x }}", "  three", "  {% if y %}", "    <b>four</b>"]
    source = "\n".join([*lines, "  {% endif %}", "</p>", ""])
    laid_out = LaidOut(_environment()).preprocess(source, "parts.html.j2")
    assert laid_out == '<p class="a" id="b">One two {{ x }} three{% if y %}<b>four</b>{% endif %}</p>'
    assert LaidOut(_environment()).preprocess(source, "report.html.j2") == source


def test_an_undefined_name_in_a_template_fails_instead_of_printing_nothing():
    with pytest.raises(UndefinedError):
        _environment().from_string("{{ nowhere }}").render()
    assert render_html({}).endswith("</html>\n")
