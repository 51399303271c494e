from genesis_git.cli.main import run

run()
