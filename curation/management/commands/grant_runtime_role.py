"""Create the runtime database role if missing and grant it exactly what the app needs."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from curation.db_roles import RoleError, grant_runtime_role


class Command(BaseCommand):
    help = (
        "As the schema owner, after every migrate and after changing SECRET_KEY: give the runtime "
        "role SELECT/INSERT/UPDATE/DELETE on data tables and only SELECT on history, write the "
        "history signing key, and make the history-writing functions run as the owner (idempotent)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "role",
            nargs="?",
            help="runtime role (default: the user of DATABASE_URL; the command itself connects "
            "with MIGRATION_DATABASE_URL when that is set)",
        )
        parser.add_argument(
            "--database", default="default", help="connection alias (it must be the schema owner)"
        )
        parser.add_argument(
            "--password-env",
            metavar="VAR",
            help="set the role's password from this environment variable (never on the command line)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        role = options["role"] or settings.DATABASE_RUNTIME_USER or ""
        password = None
        if options["password_env"]:
            password = os.environ.get(options["password_env"])
            if not password:
                raise CommandError(f"--password-env: {options['password_env']} is not set")
        try:
            self.stdout.write(
                grant_runtime_role(role, using=options["database"], password=password)
            )
        except RoleError as exc:
            raise CommandError(str(exc)) from exc
