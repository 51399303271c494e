"""The seed API's own tests: seed 000's ``tests/test_rag_*.py`` and ``tests/test_impact_rag.py``
as the seed prints them, with ``genesis`` spelled ``genesis_git``; nothing else in them changes.

A package, so that their module names (``seed.test_rag_store``) stay apart from the project's
own tests of the same names.
"""
