package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The exception a blocking send throws for each failure: the JDK client's (25) type, the original as cause. */
class SendFailuresTest {

    @Test
    void keepsTheTypesTheJdkClientKeeps() {
        assertRethrownAs(new HttpConnectTimeoutException("connect"), HttpConnectTimeoutException.class);
        assertRethrownAs(new HttpTimeoutException("request"), HttpTimeoutException.class);
        assertRethrownAs(new ConnectException("refused"), ConnectException.class);
        assertRethrownAs(new SSLHandshakeException("handshake"), SSLHandshakeException.class);
        assertRethrownAs(new SSLException("record"), SSLException.class);
        assertRethrownAs(new ProtocolException("status line"), ProtocolException.class);
        assertRethrownAs(new IOException("reset"), IOException.class);
    }

    @Test
    void aRuntimeExceptionOfTheBodyHandlerBecomesAnIoException() {
        IllegalStateException original = new IllegalStateException("handler says no");
        IOException rethrown = SendFailures.rethrow(new CompletionException(original));
        assertThat(rethrown.getClass(), is((Object) IOException.class));
        assertThat(rethrown.getCause(), sameInstance(original));
        assertThat(rethrown.getMessage(), is("handler says no"));
    }

    @Test
    void illegalArgumentAndSecurityExceptionsAreThrownAgainWithTheOriginalAsCause() {
        IllegalArgumentException argument = new IllegalArgumentException("bad uri");
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> SendFailures.rethrow(new CompletionException(argument)));
        assertThat(thrown.getCause(), sameInstance(argument));
        SecurityException security = new SecurityException("denied");
        assertThat(assertThrows(SecurityException.class, () -> SendFailures.rethrow(security)).getCause(),
                sameInstance(security));
    }

    @Test
    void anErrorPropagatesUnwrapped() {
        StackOverflowError error = new StackOverflowError("deep");
        assertThat(assertThrows(StackOverflowError.class, () -> SendFailures.rethrow(new CompletionException(error))),
                sameInstance(error));
    }

    private static void assertRethrownAs(IOException original, Class<? extends IOException> type) {
        IOException rethrown = SendFailures.rethrow(new CompletionException(original));
        assertThat(rethrown.getClass(), is((Object) type));
        assertThat(rethrown.getCause(), sameInstance(original));
        assertThat(rethrown.getMessage(), is(original.getMessage()));
    }
}
