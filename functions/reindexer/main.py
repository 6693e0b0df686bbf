"""Re-indexer: a Pub/Sub message asks to re-index a note, a tenant or everything."""

import functions_framework
from cloudevents.http import CloudEvent

from footnote.config import get_settings
from footnote.entrypoints import handle_reindex_message

# Read the settings at start-up, not on the first event: settings that cannot work
# (VECTOR_INDEX=vertex without its ids, a demo-* project on Cloud Run) stop the
# instance with one line instead of failing every delivery.
get_settings()


@functions_framework.cloud_event
def reindex(cloud_event: CloudEvent) -> None:
    handle_reindex_message(cloud_event)
