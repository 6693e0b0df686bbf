"""Quality as a number: retrieval and cited-answer evaluation on public benchmarks.

The harness has no pipeline of its own: it indexes a benchmark's documents as
the notes of one tenant through ``IndexingService`` and asks its questions
through the ``Retriever`` and ``ChatService`` that serve ``/search`` and ``/chat``.
"""
