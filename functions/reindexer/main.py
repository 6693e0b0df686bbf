"""Re-indexer: a Pub/Sub message asks to re-index a note, a tenant or everything."""

import functions_framework
from cloudevents.http import CloudEvent

from footnote.entrypoints import handle_reindex_message


@functions_framework.cloud_event
def reindex(cloud_event: CloudEvent) -> None:
    handle_reindex_message(cloud_event)
