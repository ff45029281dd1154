package io.ringkv.net;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OutboundQueueTest {

    /** A socket stand-in that takes at most {@code capacity} bytes per write (unbounded when negative). */
    static final class FakeSink implements OutboundQueue.Sink {
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        volatile long capacity = -1;
        volatile int awaitCalls;
        volatile int writableSignals;
        volatile boolean closeMarkerWritten;
        volatile IOException failure;

        @Override
        public synchronized long write(ByteBuffer[] buffers, int offset, int length) {
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                ByteBuffer buffer = buffers[i];
                while (buffer.hasRemaining() && (capacity < 0 || total < capacity)) {
                    written.write(buffer.get());
                    total++;
                }
            }
            return total;
        }

        @Override
        public void awaitWritable() {
            awaitCalls++;
        }

        @Override
        public void onCloseMarkerWritten() {
            closeMarkerWritten = true;
        }

        @Override
        public void onWritable() {
            writableSignals++;
        }

        @Override
        public void onWriteFailed(IOException cause) {
            failure = cause;
        }

        synchronized String text() {
            return written.toString(StandardCharsets.US_ASCII);
        }
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void writesGroupsInOrderWhenTheSocketTakesEverything() {
        FakeSink sink = new FakeSink();
        OutboundQueue queue = new OutboundQueue(sink, 1024, 256);
        queue.enqueue(new ByteBuffer[] {ascii("ab"), ascii("cd")}, false);
        queue.enqueue(new ByteBuffer[] {ascii("ef")}, false);
        queue.flush();
        assertThat(sink.text(), is("abcdef"));
        assertThat(queue.queuedBytes(), is(0L));
        assertThat(queue.state(), is(OutboundQueue.State.IDLE));
    }

    @Test
    void waitsForTheLoopWhenTheSocketIsFullAndResumesOnWritable() {
        FakeSink sink = new FakeSink();
        sink.capacity = 3;
        OutboundQueue queue = new OutboundQueue(sink, 1024, 256);
        queue.enqueue(new ByteBuffer[] {ascii("hello world")}, false);
        queue.flush();
        assertThat(sink.text(), is("hel"));
        assertThat(queue.state(), is(OutboundQueue.State.AWAITING_WRITABLE));
        assertThat(sink.awaitCalls, is(1));

        queue.flush(); // a producer's flush while the loop owns the queue does nothing
        assertThat(sink.text(), is("hel"));

        sink.capacity = -1;
        queue.onSocketWritable();
        assertThat(sink.text(), is("hello world"));
        assertThat(queue.state(), is(OutboundQueue.State.IDLE));
    }

    @Test
    void countsEnqueuedAndWrittenBytesSoAProducerKnowsWhenItsBuffersAreFree() {
        FakeSink sink = new FakeSink();
        sink.capacity = 4;
        OutboundQueue queue = new OutboundQueue(sink, 1024, 256);
        queue.enqueue(new ByteBuffer[] {ascii("abc"), ascii("def")}, false);
        long firstEnd = queue.enqueuedTotal();
        queue.enqueue(new ByteBuffer[] {ascii("gh")}, false);
        assertThat(firstEnd, is(6L));
        assertThat(queue.enqueuedTotal(), is(8L));
        queue.flush();
        assertThat(queue.writtenTotal(), is(4L)); // the first group is not done: "ef" waits
        sink.capacity = 2;
        queue.onSocketWritable();
        assertThat(queue.writtenTotal() >= firstEnd, is(true));
        sink.capacity = -1;
        queue.onSocketWritable();
        assertThat(queue.writtenTotal(), is(8L));
        assertThat(sink.text(), is("abcdefgh"));
    }

    @Test
    void urgentGroupJumpsGroupsNotYetTaken() {
        FakeSink sink = new FakeSink();
        sink.capacity = 0;
        OutboundQueue queue = new OutboundQueue(sink, 1024, 256);
        queue.enqueue(new ByteBuffer[] {ascii("first ")}, false);
        queue.flush(); // "first " is now taken into the batch, the socket is full
        queue.enqueue(new ByteBuffer[] {ascii("second ")}, false);
        queue.enqueue(new ByteBuffer[] {ascii("URGENT ")}, true);
        sink.capacity = -1;
        queue.onSocketWritable();
        assertThat(sink.text(), is("first URGENT second "));
    }

    @Test
    void signalsWritableOnceQueuedBytesFallToLowWater() {
        FakeSink sink = new FakeSink();
        sink.capacity = 0;
        OutboundQueue queue = new OutboundQueue(sink, 10, 4);
        queue.enqueue(new ByteBuffer[] {ascii("0123456789AB")}, false);
        queue.flush();
        assertThat(queue.isWritable(), is(false));

        sink.capacity = 6; // 12 -> 6 queued: still above low water
        queue.onSocketWritable();
        assertThat(queue.isWritable(), is(false));
        assertThat(sink.writableSignals, is(0));

        sink.capacity = 6; // 6 -> 0
        queue.onSocketWritable();
        assertThat(queue.isWritable(), is(true));
        assertThat(sink.writableSignals, is(1));
    }

    @Test
    void aDrainNobodyAskedAboutIsNotSignalled() {
        FakeSink sink = new FakeSink();
        sink.capacity = -1;
        OutboundQueue queue = new OutboundQueue(sink, 10, 4);
        queue.enqueue(new ByteBuffer[] {ascii("0123456789AB")}, false); // past high water, unasked
        queue.flush(); // the producer's own flush drains it
        assertThat(sink.writableSignals, is(0));
        assertThat(queue.isWritable(), is(true));

        queue.enqueue(new ByteBuffer[] {ascii("0123456789AB")}, false);
        assertThat(queue.isWritable(), is(false)); // this producer will wait: it asks
        queue.flush();
        assertThat(sink.writableSignals, is(1));
    }

    @Test
    void closeMarkerFiresAfterEverythingBeforeItIsWrittenAndLaterGroupsAreDropped() {
        FakeSink sink = new FakeSink();
        OutboundQueue queue = new OutboundQueue(sink, 1024, 256);
        queue.enqueue(new ByteBuffer[] {ascii("last words")}, false);
        queue.enqueueCloseMarker();
        queue.enqueue(new ByteBuffer[] {ascii(" too late")}, false);
        queue.flush();
        assertThat(sink.text(), is("last words"));
        assertThat(sink.closeMarkerWritten, is(true));
        assertThat(queue.state(), is(OutboundQueue.State.CLOSED));
    }

    @Test
    void concurrentProducersNeverInterleaveInsideAGroupAndKeepTheirOwnOrder() throws Exception {
        FakeSink sink = new FakeSink();
        sink.capacity = 7; // many short writes, so ownership changes hands often
        OutboundQueue queue = new OutboundQueue(sink, Long.MAX_VALUE - 1, 0);
        int producers = 4;
        int groupsEach = 2000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            char id = (char) ('a' + p);
            threads.add(Thread.ofPlatform().start(() -> {
                awaitQuietly(start);
                for (int i = 0; i < groupsEach; i++) {
                    String seq = String.format("%05d", i);
                    queue.enqueue(new ByteBuffer[] {ascii("<" + id), ascii(seq), ascii(">")}, false);
                    queue.flush();
                    if (queue.state() == OutboundQueue.State.AWAITING_WRITABLE) {
                        queue.onSocketWritable(); // play the loop's part
                    }
                }
            }));
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        while (queue.state() == OutboundQueue.State.AWAITING_WRITABLE) {
            queue.onSocketWritable();
        }
        assertThat(sink.failure, is((IOException) null));
        assertThat(queue.queuedBytes(), is(0L));
        List<String> problems = checkGroups(sink.text(), producers, groupsEach);
        assertThat(problems, is(empty()));
    }

    private static List<String> checkGroups(String text, int producers, int groupsEach) {
        List<String> problems = new ArrayList<>();
        int[] next = new int[producers];
        int position = 0;
        while (position < text.length()) {
            String group = text.substring(position, Math.min(text.length(), position + 8));
            if (group.length() != 8 || group.charAt(0) != '<' || group.charAt(7) != '>') {
                problems.add("torn group at " + position + ": " + group);
                return problems;
            }
            int producer = group.charAt(1) - 'a';
            int seq = Integer.parseInt(group.substring(2, 7));
            if (seq != next[producer]) {
                problems.add("producer " + producer + " expected " + next[producer] + " got " + seq);
            }
            next[producer] = seq + 1;
            position += 8;
        }
        for (int p = 0; p < producers; p++) {
            if (next[p] != groupsEach) {
                problems.add("producer " + p + " wrote " + next[p] + " groups");
            }
        }
        return problems;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void discardDropsQueuedBytes() {
        FakeSink sink = new FakeSink();
        sink.capacity = 0;
        OutboundQueue queue = new OutboundQueue(sink, 1024, 256);
        queue.enqueue(new ByteBuffer[] {ascii("never sent")}, false);
        queue.flush();
        queue.discard();
        sink.capacity = -1;
        queue.onSocketWritable();
        queue.flush();
        assertThat(sink.text(), equalTo(""));
        assertThat(List.of(queue.state()), contains(OutboundQueue.State.CLOSED));
    }
}
