"""One self-contained HTML page from the files of ``static/``: the style and scripts inlined, the data as JSON,
so a page needs no server, no CDN and no other file (the web game's page is built the same way)."""

from __future__ import annotations

import html
import json
from functools import cache
from importlib.resources import files
from string import Template


@cache
def asset(name: str) -> str:
    """The text of ``static/NAME``."""
    return (files("kdenv.viewer") / "static" / name).read_text(encoding="utf-8")


def page(title: str, scripts: list[str], data: object) -> str:
    """An HTML page titled ``title`` that runs ``static/`` ``scripts`` in order on ``data`` (the global DATA)."""
    # a "<" in the JSON ("</script", "<!--") could end or change the script element; "\u003c" reads the same to
    # JavaScript, and JSON has "<" nowhere but inside strings
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    code = "\n".join(asset(name) for name in scripts).replace("</script", "<\\/script")
    return Template(asset("page.html")).substitute(
        title=html.escape(title), style=asset("style.css"), data=payload, script=code
    )
