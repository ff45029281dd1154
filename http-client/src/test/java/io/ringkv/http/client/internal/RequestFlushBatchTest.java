package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RequestFlushBatchTest {
    private final RequestFlushBatch batch = new RequestFlushBatch();

    @Test
    void aRunOfItemsIsBatchedUpToTheConnectionsHighWaterMark() {
        assertThat(RequestFlushBatch.BYTES_MAX, is(NetTransport.CHANNEL_OPTIONS.writeHighWaterBytes()));
        assertThat(RequestFlushBatch.BYTES_MAX, is(1024L * 1024));
        List<Boolean> deferred = new ArrayList<>();
        batch.request(() -> {
            deferred.add(batch.deferFlush(0));
            deferred.add(batch.deferFlush(RequestFlushBatch.BYTES_MAX - 1));
            deferred.add(batch.deferFlush(RequestFlushBatch.BYTES_MAX));
        }, () -> { });
        assertThat(deferred, contains(true, true, false));
    }

    @Test
    void theOutermostRequestFlushesOnceAfterNestedOnes() {
        List<String> calls = new ArrayList<>();
        batch.request(() -> {
            calls.add("outer");
            batch.request(() -> calls.add("nested"), () -> calls.add("nested flush"));
        }, () -> calls.add("flush"));
        assertThat(calls, contains("outer", "nested", "flush"));
    }

    @Test
    void anItemOutsideARunOrFromAnotherThreadIsNeverDeferred() throws Exception {
        assertThat(batch.deferFlush(0), is(false));
        CompletableFuture<Boolean> otherThread = new CompletableFuture<>();
        batch.request(() -> {
            Thread other = new Thread(() -> otherThread.complete(batch.deferFlush(0)));
            other.start();
            try {
                other.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, () -> { });
        assertThat(otherThread.get(), is(false));
    }
}
