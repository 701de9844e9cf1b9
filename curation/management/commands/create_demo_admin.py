"""Create (or reset) the demo admin login for a local trial run and print it."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create or reset the demo superuser and print its login (local trial runs only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")

    def handle(self, *args: Any, **options: Any) -> None:
        password = secrets.token_urlsafe(12)
        user_model = get_user_model()
        user, _ = user_model.objects.get_or_create(username=options["username"])
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        self.stdout.write(
            f"Admin login: {options['base_url']}/admin/  user: {user.username}  password: {password}"
        )
