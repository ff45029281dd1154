package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;

/**
 * Decodes one chunked body, RFC 9112 §7.1, resumable at any byte; shared by the request and
 * response parsers.
 *
 * <pre>
 *   SIZE_LINE --n>0--> DATA --n bytes--> DATA_END --CRLF--> SIZE_LINE
 *   SIZE_LINE --0--> TRAILERS --empty line--> (MessageEnd, back to SIZE_LINE for the next body)
 * </pre>
 *
 * <p>Chunk framing requires CRLF (a bare LF is 400 {@code bare_lf}): lenient chunk parsing is a
 * known request-smuggling vector. The sum of chunk sizes is bounded by
 * {@link H1Limits#bodyBytesMax()} (413 {@code body_too_large}), checked before the data arrives;
 * trailers by the header limits (431).
 *
 * <p>Threading: confined to the owning parser.
 */
final class ChunkedBodyDecoder {
    private enum State { SIZE_LINE, DATA, DATA_END, TRAILERS }

    private final long bodyBytesMax;
    private final LineReader lines = new LineReader();
    private final FieldSectionReader trailerSection;
    private final H1ParseException lineTooLong = H1ParseException.badRequest("chunk_line_too_long");

    private State state = State.SIZE_LINE;
    private long chunkRemaining;
    private long bodyBytes;
    /** How much of the CRLF after chunk data has been seen: 0 or 1. */
    private int dataEndCursor;

    /** @param unfoldTrailers replace obsolete line folding in trailers (responses) instead of rejecting it */
    ChunkedBodyDecoder(H1Limits limits, boolean unfoldTrailers) {
        this.bodyBytesMax = limits.bodyBytesMax();
        this.trailerSection = new FieldSectionReader(limits.headerBlockBytesMax(), limits.headerCountMax(), 431,
                "trailer", unfoldTrailers);
    }

    /** @return a {@link BodyChunk}, the {@link MessageEnd} (then ready for another body), or null for more bytes */
    H1Event next(ByteBuffer in) throws H1ParseException {
        // Bounded: each pass through a non-returning branch consumed at least one byte.
        while (true) {
            switch (state) {
                case SIZE_LINE -> {
                    if (!readSizeLine(in)) {
                        return null;
                    }
                }
                case DATA -> {
                    BodyChunk chunk = BodySlices.take(in, chunkRemaining);
                    if (chunk != null) {
                        chunkRemaining -= chunk.data().remaining();
                        state = chunkRemaining == 0 ? State.DATA_END : State.DATA;
                    }
                    return chunk;
                }
                case DATA_END -> {
                    if (!readDataEnd(in)) {
                        return null;
                    }
                }
                case TRAILERS -> {
                    Headers trailers = trailerSection.read(in);
                    return trailers == null ? null : end(trailers);
                }
            }
        }
    }

    private boolean readSizeLine(ByteBuffer in) throws H1ParseException {
        if (!lines.read(in, ChunkSizeLine.LINE_BYTES_MAX, true, lineTooLong)) {
            return false;
        }
        long size = ChunkSizeLine.parse(lines.bytes(), lines.length());
        if (size == 0) {
            state = State.TRAILERS;
            return true;
        }
        if (size > bodyBytesMax - bodyBytes) {
            throw new H1ParseException(413, "body_too_large");
        }
        bodyBytes += size;
        chunkRemaining = size;
        state = State.DATA;
        return true;
    }

    /** RFC 9112 §7.1: chunk-data is followed by CRLF, exactly. */
    private boolean readDataEnd(ByteBuffer in) throws H1ParseException {
        while (in.hasRemaining()) {
            byte expected = dataEndCursor == 0 ? HttpChars.CR : HttpChars.LF;
            if (in.get() != expected) {
                throw H1ParseException.badRequest("missing_chunk_crlf");
            }
            if (++dataEndCursor == 2) {
                dataEndCursor = 0;
                state = State.SIZE_LINE;
                return true;
            }
        }
        return false;
    }

    private MessageEnd end(Headers trailers) {
        state = State.SIZE_LINE;
        bodyBytes = 0;
        return new MessageEnd(trailers);
    }
}
