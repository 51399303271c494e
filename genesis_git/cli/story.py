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
    from genesis_git.cli.output import echo, emit_json, stdout_is_tty
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
    if not rows:
        echo("no stories" + (f" with status {status}" if status else "") +
             " (commit with a story id in the subject, or run `genesis story rebuild`)")
        return
    if stdout_is_tty():
        from rich.table import Table

        from genesis_git.cli.output import console

        table = Table("story", "status", "commits", "notes", "updated", "title")
        for r in rows:
            table.add_row(r["story_id"], r["status"], str(r["commits"]), str(r["artifacts"]),
                          r["updated_at"][:16], r["title"] or "")
        console().print(table)
        return
    echo("story\tstatus\tcommits\tnotes\tupdated\ttitle")  # piped: tab-separated, one header
    for r in rows:
        echo(f"{r['story_id']}\t{r['status']}\t{r['commits']}\t{r['artifacts']}\t"
             f"{r['updated_at']}\t{r['title'] or ''}")


def _org_list(status: str | None, project: str | None, json_out: bool) -> None:
    from genesis_git.cli.output import echo, emit_json, note, stdout_is_tty
    from genesis_git.mirror.org import render_list

    res = Genesis().mirror.stories(status=status, project=project)
    if json_out:
        emit_json(res)
        return
    rows = res["stories"]
    if not rows:
        note(f"no stories in the mirror at {res['mirror']}" +
             (f" with status {status}" if status else "") +
             (f" for project {project}" if project else ""))
        return
    if stdout_is_tty():
        from rich.table import Table

        from genesis_git.cli.output import console

        table = Table("story", "status", "commits", "notes", "updated", "projects", "title")
        for r in rows:
            table.add_row(r["story_id"], r["status"], str(r["commits"]), str(r["artifacts"]),
                          (r["updated_at"] or "")[:16], "\n".join(r["projects"]),
                          r["title"] or "")
        console().print(table)
        return
    for line in render_list(rows):
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
    echo(f"{rec['story_id']}: {rec['title'] or '(no title)'}")
    echo(f"status:   {rec['status']}")
    echo(f"baseline: {rec['baseline_commit_sha'] or '-'}")
    echo(f"created:  {rec['created_at']}  {rec['created_by'] or ''}".rstrip())
    echo(f"updated:  {rec['updated_at']}")
    echo(f"commits:  {rec['commits']}   files touched: {rec['files_touched']}")
    arts = ", ".join(f"{k} {v}" for k, v in rec["artifacts"].items()) or "none"
    echo(f"artifacts: {arts}")
    for lk in rec["links"]:
        echo(f"link:     {lk['type']}: {lk['target']}" +
             (f"  {lk['description']}" if lk["description"] else ""))


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
    echo(f"{'created' if created else 'updated'} {rec['story_id']}: {rec['status']}, "
         f"{rec['title'] or '(no title)'}")


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
    verb = "linked" if res["added"] else "already linked"
    extra = f" ({res['files']} changed files)" if res["type"] == "commit" and res["added"] else ""
    echo(f"{verb}: {story_id} -> {res['type']} {res['target']}{extra}")


@app.command()
def context(
    story_id: StoryArg,
    json_out: JsonOpt = False,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print Markdown, made to be given to an LLM.")] = False,
    with_code: Annotated[int, typer.Option(
        "--with-code", min=0, metavar="K",
        help="Add the K most relevant chunks of the current index for the story's text.")] = 0,
    org: OrgOpt = False,
) -> None:
    """Everything a story holds: record, commits, net changed files, artifacts, links."""
    from genesis_git.cli.output import echo, emit_json, note
    from genesis_git.kernel.errors import UsageError
    from genesis_git.stories.context import render_markdown, render_text

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
        typer.echo(render_markdown(ctx), nl=False)
    else:
        echo(render_text(ctx))


def _org_context(story_id: str, json_out: bool, markdown: bool) -> None:
    from genesis_git.cli.output import echo, emit_json
    from genesis_git.mirror import org

    ctx = Genesis().mirror.story(story_id)
    if json_out:
        emit_json(ctx)
    elif markdown:
        typer.echo(org.render_markdown(ctx), nl=False)
    else:
        echo(org.render_text(ctx, ctx["mirror"]))


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
    echo(f"bound {res['notes']} note(s) of {', '.join(res['sessions']) or 'no session'} "
         f"to {story_id}")


@app.command()
def rebuild(
    prune: Annotated[bool, typer.Option(
        "--prune", help="Also drop linked commits that no branch, remote or tag reaches.")] = False,
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
    if res.get("moved_aside"):
        kept = ", ".join(f"{n} {t}" for t, n in res["salvaged"].items() if n > 0) or "nothing"
        lost = [t for t, n in res["salvaged"].items() if n < 0]
        echo(f"moved the old store to {res['moved_aside']}; kept from it: {kept}" +
             (f"; unreadable: {', '.join(lost)}" if lost else ""))
    echo(f"scanned {res['commits_scanned']} commits, {res['story_commits']} name a story: "
         f"{len(res['stories'])} stories ({len(res['created'])} new), "
         f"{res['links_added']} commit links and {res['files_added']} file changes added, "
         f"{res['notes_bound']} notes bound")
    if res["unreachable"]:
        echo(f"{len(res['unreachable'])} linked commits are no longer reachable "
             "(`genesis story rebuild --prune` drops them)")
    if res["pruned"]:
        echo(f"pruned {res['pruned']} unreachable commits")
    if res["skipped"]:
        shown = ", ".join(f"{k} ({v})" for k, v in list(res["skipped"].items())[:8])
        more = len(res["skipped"]) - 8
        echo(f"skipped {len(res['skipped'])} ids that never bind (story.prefixes, story.ignore "
             f"and the built-in list): {shown}" + (f" and {more} more" if more > 0 else ""))
    if res["failures_cleared"]:
        echo(f"cleared {res['failures_cleared']} logged hook failures")
