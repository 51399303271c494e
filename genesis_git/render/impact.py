"""Impact reports as text, as Markdown and as the MCP tool's short text (the JSON is the
report's ``result`` itself)."""

from __future__ import annotations

from typing import Any


def _reasons(f: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v:+.3f}" for k, v in f["reasons"].items())


def _conf(f: dict[str, Any], sep: str = "  ") -> str:
    """`` confidence 0.74`` when the file has one."""
    return f"{sep}confidence {f['confidence']:.2f}" if f.get("confidence") is not None else ""


def _where(item: dict[str, Any]) -> str:
    from genesis_git.text.quoting import quote_path

    lines = item["lines"]
    path = quote_path(str(item["path"]))
    return f"{path}:{lines[0]}-{lines[1]}" if lines else path


def text_lines(result: dict[str, Any]) -> list[str]:
    """The ranked files, then every impact with its detail and evidence lines."""
    from genesis_git.render.terminal import clean
    from genesis_git.text.quoting import escape_controls as esc
    from genesis_git.text.quoting import quote_path

    out = [f"impact of: {clean(result['requirement']).strip()}  [{result['mode']}]", "", "files:"]
    for i, f in enumerate(result["files"], 1):
        out.append(f"{i:>3}. {quote_path(f['path'])}  {f['score']:.3f}{_conf(f)}  ({_reasons(f)})")
    out += ["", "impacts:"]
    for item in result["impacts"]:
        out.append(f"  [{item['type']}] {item['kind']} {esc(item['target'])}  {_where(item)}")
        if item["detail"]:
            out.append(f"      {esc(item['detail'])}")
        out += [f"      > {esc(ev)}" for ev in item["evidence"]]
    return out


def markdown_lines(result: dict[str, Any]) -> list[str]:
    """A table of the ranked files, then the impacts as a list with their evidence."""
    from genesis_git.render.terminal import clean
    from genesis_git.text.quoting import escape_controls as esc
    from genesis_git.text.quoting import quote_path

    out = [f"# Impact: {clean(result['requirement']).strip()}", "", f"Mode: {result['mode']}", "",
           "| # | file | score | reasons |", "|---|---|---|---|"]
    for i, f in enumerate(result["files"], 1):
        out.append(f"| {i} | `{quote_path(f['path'])}` | {f['score']:.3f} | {_reasons(f)} |")
    out += ["", "## Impacts", ""]
    for item in result["impacts"]:
        out.append(f"- **{item['type']}** {item['kind']} `{esc(item['target'])}` "
                   f"(`{_where(item)}`)" + (f": {esc(item['detail'])}" if item["detail"] else ""))
        out += [f"  - `{esc(ev)}`" for ev in item["evidence"]]
    return out


def no_match(requirement: str, suggestions: list[str]) -> str:
    """What is said when nothing in the index matches the requirement."""
    from genesis_git.text.quoting import quoted

    text = f"nothing in the index matches {quoted(requirement)}"
    if suggestions:
        text += "; close terms: " + ", ".join(suggestions)
    return text


def summary(result: dict[str, Any], warnings: list[str], suggestions: list[str]) -> str:
    """The MCP tool's short text beside the JSON: files with their reasons, the impacts."""
    from genesis_git.render.lines import with_warnings
    from genesis_git.text.quoting import quoted

    lines = [f"impact of {quoted(result['requirement'])} [{result['mode']}]"]
    if not result["files"] and not result["impacts"]:
        text = "nothing in the index matches the requirement"
        if suggestions:
            text += "; close terms: " + ", ".join(suggestions)
        lines.append(text)
    if result["files"]:
        lines.append("files:")
    for i, f in enumerate(result["files"], 1):
        lines.append(f"{i:>3}. {f['path']}  {f['score']:.3f}{_conf(f)}  ({_reasons(f)})")
    if result["impacts"]:
        lines.append("impacts:")
    for item in result["impacts"]:
        where = (f"{item['path']}:{item['lines'][0]}-{item['lines'][1]}" if item["lines"]
                 else str(item["path"]))
        lines.append(f"  [{item['type']}] {item['kind']} {item['target']}  {where}"
                     + (f": {item['detail']}" if item["detail"] else ""))
        lines.extend(f"      > {ev}" for ev in item["evidence"][:3])
    return "\n".join(with_warnings(lines, warnings))
