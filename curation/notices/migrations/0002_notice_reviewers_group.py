"""Create the "Notice reviewers" group: review notice events, read notice data."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Notice reviewers"
PERMISSIONS = [
    ("notices", "view_noticereview"),
    ("notices", "change_noticereview"),
    ("notices", "view_noticeevent"),
    ("notices", "view_sourcereceipt"),
    ("notices", "view_retractionwatchrecord"),
    ("curation", "view_observation"),
    ("curation", "view_citedwork"),
    ("curation", "view_paper"),
]


def create_group(apps, schema_editor):
    # Permissions are normally created after all migrations; the group needs them now.
    for label in ("notices", "curation"):
        config = apps.get_app_config(label)
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    for app_label, codename in PERMISSIONS:
        permission = Permission.objects.filter(
            content_type__app_label=app_label, codename=codename
        ).first()
        if permission is not None:
            group.permissions.add(permission)


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("notices", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
