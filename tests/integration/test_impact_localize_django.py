"""``genesis impact`` on a Django project: a model is a table, its migrations alter it, and a
new column gets a field impact and a new migration (index.facts, impact.analyse)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.index.facts import tables_in_text

from helpers import make_repo

runner = CliRunner()

MODELS = '''from django.db import models


class Document(models.Model):
    title = models.CharField(max_length=200)
    body = models.TextField()
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.title
'''
INITIAL = '''from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    operations = [
        migrations.CreateModel(
            name='Document',
            fields=[
                ('id', models.AutoField(primary_key=True)),
                ('title', models.CharField(max_length=200)),
                ('body', models.TextField()),
            ],
        ),
    ]
'''
ADD = '''from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [('library', '0001_initial')]
    operations = [
        migrations.AddField(
            model_name='document',
            name='created',
            field=models.DateTimeField(auto_now_add=True),
        ),
    ]
'''
FILES = {"library/models.py": MODELS, "library/migrations/0001_initial.py": INITIAL,
         "library/migrations/0002_document_created.py": ADD,
         "library/views.py": ("from library.models import Document\n\n\ndef recent(request):\n"
                              "    return Document.objects.order_by('-created')\n")}


def test_a_django_model_and_its_migrations_are_tables() -> None:
    assert tables_in_text(MODELS, 1) == [("document", 4, 11, ["title", "body", "created"],
                                          "orm")]
    assert tables_in_text(ADD, 1) == [("document", 7, 7, [], "alter")]
    assert tables_in_text(INITIAL, 1) == [("document", 7, 7, [], "alter")]
    named = MODELS.replace("        return self.title\n",
                           "        return self.title\n\n    class Meta:\n"
                           "        db_table = 'docs'\n")
    assert [t[0] for t in tables_in_text(named, 1)] == ["docs"]  # db_table wins


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "library", FILES)
    monkeypatch.chdir(root)
    return root


def test_a_new_column_of_a_django_model_gets_a_field_and_one_new_migration(library: Path
                                                                           ) -> None:
    res = runner.invoke(app, ["impact", "--json", "-k", "5",
                              "add a tags column to the document table"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["files"][0]["path"] == "library/models.py"
    field = data["impacts"][0]
    assert (field["target"], field["kind"], field["type"], field["path"]) == (
        "document.tags", "field", "add", "library/models.py")
    migrations = [i for i in data["impacts"] if i["target"].endswith("(new migration)")]
    assert len(migrations) == 1
    assert migrations[0]["path"] == "library/migrations/" and migrations[0]["type"] == "add"
    assert "add column tags to table document" in migrations[0]["detail"]
    assert migrations[0]["evidence"][0].endswith(": a migration of document")
