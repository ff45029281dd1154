package io.ringkv.http.h1;

/**
 * What {@link RequestParser#next} reports. One request is
 * {@code RequestHead (BodyChunk)* MessageEnd}; a {@code ParseError} ends the connection.
 */
public sealed interface H1Event permits RequestHead, BodyChunk, MessageEnd, ParseError {
}
