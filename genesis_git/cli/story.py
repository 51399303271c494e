"""``genesis story …``: list, show, set, link, context, bind, rebuild."""

from __future__ import annotations

from typing import Annotated

import typer

from genesis_git.app.facade import Genesis

app = typer.Typer(help="The story ledger: what each story id holds, rebuilt from git when needed.",
                  no_args_is_help=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")]
OrgOpt = Annotated[bool, typer.Option(
    "--org", help="Read the organisation's PostgreSQL mirror: every repository's stories, each "
                  "item marked with its project.")]
StoryArg = Annotated[str, typer.Argument(help="A story id, e.g. STORY-12.")]


@app.command(name="list")
def list_(
    status: Annotated[str | None, typer.Option(
        "--status", help="Only stories with this status (draft, in_progress, review, done, "
                         "archived).")] = None,
    json_out: JsonOpt = False,
    org: OrgOpt = False,
    project: Annotated[str | None, typer.Option(
        "--project", help="With --org: only stories that this project took part in.")] = None,
) -> None:
    """List the stories, most recently updated first."""
    from genesis_git.cli.output import echo, emit_json, paint, stdout_is_tty
    from genesis_git.kernel.errors import UsageError

    if project is not None and not org:
        raise UsageError("--project goes with --org (the local ledger is one project)")
    if org:
        _org_list(status, project, json_out)
        return
    with Genesis() as g:
        rows = g.stories.all(status)
    if json_out:
        emit_json({"stories": rows})
        return
    from genesis_git.render import stories as render

    if not rows:
        echo(render.list_empty(status))
        return
    if stdout_is_tty():
        from genesis_git.render.terminal import story_rows

        lines = story_rows(rows, paint())
    else:
        lines = render.list_lines(rows, paint())  # piped: tab-separated, one header
    for line in lines:
        echo(line)


def _org_list(status: str | None, project: str | None, json_out: bool) -> None:
    from genesis_git.cli.output import echo, emit_json, note, stdout_is_tty
    from genesis_git.render import org as render

    res = Genesis().mirror.stories(status=status, project=project)
    if json_out:
        emit_json(res)
        return
    rows = res["stories"]
    if not rows:
        note(render.list_empty(res["mirror"], status, project))
        return
    if stdout_is_tty():
        from genesis_git.cli.output import paint
        from genesis_git.render.terminal import story_rows

        lines = story_rows(rows, paint(), projects=True)
    else:
        lines = render.list_lines(rows)
    for line in lines:
        echo(line)


@app.command()
def show(story_id: StoryArg, json_out: JsonOpt = False) -> None:
    """Show a story's record, its counts and its links."""
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        rec = g.stories.show(story_id)
    if json_out:
        emit_json(rec)
        return
    from genesis_git.render.stories import show_lines

    for line in show_lines(rec):
        echo(line)


@app.command(name="set")
def set_(
    story_id: StoryArg,
    status: Annotated[str | None, typer.Option(
        "--status", help="draft, in_progress, review, done or archived.")] = None,
    title: Annotated[str | None, typer.Option("--title", help="The story's title.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Set a story's status and/or title (a new id creates the story as a draft)."""
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        rec, created = g.stories.set(story_id, status=status, title=title)
    if json_out:
        emit_json({"created": created, "story": rec})
        return
    from genesis_git.render.stories import set_line

    echo(set_line(rec, created))


@app.command()
def link(
    story_id: StoryArg,
    link_type: Annotated[str, typer.Option(
        "--type", help="story, adr, ticket, pr, commit, doc or external.")],
    target: Annotated[str, typer.Option(
        "--target", help="What to link: an id, a URL, a path; for commit a SHA or ref.")],
    description: Annotated[str | None, typer.Option(
        "--description", help="A short description of the link.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Link a story to another story, an ADR, a ticket, a PR, a commit, a doc or a URL."""
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        res = g.stories.link(story_id, link_type, target, description)
    if json_out:
        emit_json(res)
        return
    from genesis_git.render.stories import link_line

    echo(link_line(story_id, res))


@app.command()
def context(
    story_id: StoryArg,
    json_out: JsonOpt = False,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print Markdown, made to be given to an LLM.")] = False,
    with_code: Annotated[int, typer.Option(
        "--with-code", min=0, metavar="N",
        help="Add the N most relevant chunks of the current index for the story's text.")] = 0,
    org: OrgOpt = False,
) -> None:
    """Everything a story holds: record, commits, net changed files, artifacts, links."""
    from genesis_git.cli.output import echo, emit_json, note
    from genesis_git.kernel.errors import UsageError
    from genesis_git.render.stories import context_markdown, context_text

    if json_out and markdown:
        raise UsageError("--json and --markdown exclude each other")
    if org:
        if with_code:
            raise UsageError("--with-code reads this clone's index; it does not go with --org")
        _org_context(story_id, json_out, markdown)
        return
    with Genesis() as g:
        ctx = g.stories.context(story_id, with_code=with_code)
    if json_out:
        emit_json(ctx)
        return
    for line in ctx["notes"]:
        note(line)
    if markdown:
        echo(context_markdown(ctx).rstrip("\n"))
    else:
        echo(context_text(ctx))


def _org_context(story_id: str, json_out: bool, markdown: bool) -> None:
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.render import org

    ctx = Genesis().mirror.story(story_id)
    if json_out:
        emit_json(ctx)
    elif markdown:
        echo(org.context_markdown(ctx).rstrip("\n"))
    else:
        echo(org.context_text(ctx, ctx["mirror"]))


@app.command()
def bind(
    story_id: StoryArg,
    session: Annotated[str | None, typer.Option(
        "--session", help="Only this session's notes (default: every session of this "
                          "worktree).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Bind pending notes (and the session's --doc) to a story by hand."""
    from genesis_git.cli.output import echo, emit_json
    with Genesis() as g:
        res = g.stories.bind(story_id, session)
    if json_out:
        emit_json(res)
        return
    from genesis_git.render.stories import bind_line

    echo(bind_line(story_id, res))


@app.command()
def rebuild(
    prune: Annotated[bool, typer.Option(
        "--prune", help="Also drop linked commits that this clone holds and no branch, "
                        "remote or tag reaches (never one not fetched yet).")] = False,
    from_scratch: Annotated[bool, typer.Option(
        "--from-scratch", help="Move the store aside (a damaged one, say), start a new one with "
                               "the ledger rows that can still be read, and rebuild from git.")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Re-derive stories, commit links and changed files from git log (idempotent).

    Notes, decisions and other artifacts that exist only in the ledger are kept.
    """
    from genesis_git.cli.output import echo, emit_json

    with Genesis() as g:
        res = g.stories.rebuild(prune=prune, from_scratch=from_scratch)
    if json_out:
        emit_json(res)
        return
    from genesis_git.render.stories import rebuild_lines

    for line in rebuild_lines(res):
        echo(line)
