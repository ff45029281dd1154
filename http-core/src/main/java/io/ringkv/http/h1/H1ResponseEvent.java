package io.ringkv.http.h1;

/**
 * What {@link ResponseParser#next} reports. One exchange is
 * {@code (InterimResponse)* ResponseHead (BodyChunk)* MessageEnd}. Malformed input is not an
 * event here but a {@link MalformedResponseException}: the client fails the exchange with it.
 */
public sealed interface H1ResponseEvent permits InterimResponse, ResponseHead, BodyChunk, MessageEnd {
}
