"""Query understanding: what a question asks, read once per question (issue 26).

Pure functions of their arguments: time anchors and windows, periods, intents,
note titles as events, follow-ups. Retrieval and generation read what this
package returns; it imports only the ports and the layers below them.
"""
