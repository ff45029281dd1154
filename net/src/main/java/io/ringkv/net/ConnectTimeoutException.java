package io.ringkv.net;

import java.net.SocketTimeoutException;

/** An outbound connection was not established within its connect timeout. */
public final class ConnectTimeoutException extends SocketTimeoutException {
    public ConnectTimeoutException(String message) {
        super(message);
    }
}
