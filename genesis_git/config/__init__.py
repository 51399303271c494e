"""Configuration: every setting declared once (``schema``), merged from the files and the
environment and parsed into typed settings (``settings``), and the files written from the
declaration (``reference``)."""
