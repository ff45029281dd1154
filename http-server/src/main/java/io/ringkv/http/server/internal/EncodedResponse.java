package io.ringkv.http.server.internal;

import io.ringkv.http.server.ChunkSource;
import java.nio.ByteBuffer;

/**
 * A response ready for the wire: the head (and a fixed body) as buffers, and for a streamed body
 * the source still to be pulled.
 *
 * @param buffers         head, then fixed body bytes if any
 * @param stream          the streamed body still to send, or {@code null}
 * @param chunked         whether {@code stream} is sent with the chunked coding (else delimited by close)
 * @param closeConnection whether the connection closes after this response
 */
record EncodedResponse(ByteBuffer[] buffers, ChunkSource stream, boolean chunked, boolean closeConnection) {
}
