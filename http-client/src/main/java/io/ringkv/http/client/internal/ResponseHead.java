package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import java.net.http.HttpClient;

/**
 * The final (non-1xx) status and header fields of a response, as a codec parsed them.
 * Immutable once built; {@code fields} is never modified after construction.
 */
public record ResponseHead(int status, Headers fields, HttpClient.Version version) {
}
