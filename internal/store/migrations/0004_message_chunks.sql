-- 0004: streamed text is appended, not rewritten.
--
-- Every streamed delta of a message is one row here, written with the
-- session.message.updated event that carries it; a message's text is
-- messages.text followed by its chunks in seq order. Appending a chunk
-- writes the chunk, where `text = text || delta` rewrote the whole value
-- (a 1 MB reply of 50,000 chunks wrote gigabytes). When the turn ends the
-- chunks are folded into messages.text once (SealMessages) and deleted.

CREATE TABLE message_chunks (
    message_id TEXT    NOT NULL REFERENCES messages (id),
    seq        INTEGER NOT NULL, -- the event that appended it
    text       TEXT    NOT NULL
) STRICT;

CREATE UNIQUE INDEX message_chunks_by_message ON message_chunks (message_id, seq);
