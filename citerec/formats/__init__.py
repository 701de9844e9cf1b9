"""Django's date formats for the admin's own lists (FORMAT_MODULE_PATH): one format everywhere."""
