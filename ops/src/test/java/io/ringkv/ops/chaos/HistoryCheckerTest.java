package io.ringkv.ops.chaos;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import io.ringkv.ops.chaos.HistoryChecker.FinalRead;
import io.ringkv.ops.chaos.HistoryChecker.Verdict;
import io.ringkv.ops.chaos.Operation.OpType;
import io.ringkv.ops.chaos.Operation.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {

    private static Operation put(String value, long invoke, long complete, Outcome outcome) {
        return new Operation(0, OpType.PUT, "k", value, 0, invoke, complete, outcome, "test");
    }

    private static Operation delete(long invoke, long complete, Outcome outcome) {
        return new Operation(0, OpType.DELETE, "k", null, 0, invoke, complete, outcome, "test");
    }

    private static Operation get(String value, long invoke, long complete) {
        return new Operation(1, OpType.GET, "k", value, 0, invoke, complete, Outcome.OK, "test");
    }

    private static Verdict check(List<Operation> history, Optional<String> finalValue) {
        return HistoryChecker.check(history, Map.of("k", new FinalRead("k", finalValue)), Set.of("k"));
    }

    @Test
    void theLastAcknowledgedWriteIsValid() {
        Verdict verdict = check(List.of(put("a", 0, 10, Outcome.OK), put("b", 20, 30, Outcome.OK)), Optional.of("b"));
        assertThat(verdict.valid(), is(true));
    }

    @Test
    void anOlderValueAfterALaterAcknowledgedWriteIsALostWrite() {
        Verdict verdict = check(List.of(put("a", 0, 10, Outcome.OK), put("b", 20, 30, Outcome.OK)), Optional.of("a"));
        assertThat(verdict.lostWrites(), hasSize(1));
        assertThat(verdict.lostWrites().getFirst(), startsWith("k: final read 'a', but PUT b"));
        assertThat(verdict.valid(), is(false));
    }

    @Test
    void concurrentAcknowledgedWritesMayEndEitherWay() {
        List<Operation> history = List.of(put("a", 0, 30, Outcome.OK), put("b", 10, 40, Outcome.OK));
        assertThat(check(history, Optional.of("a")).valid(), is(true));
        assertThat(check(history, Optional.of("b")).valid(), is(true));
    }

    @Test
    void aWriteOfUnknownOutcomeMayWinOverAnythingAfterIt() {
        List<Operation> history = List.of(put("a", 0, 10, Outcome.UNKNOWN), put("b", 20, 30, Outcome.OK));
        assertThat(check(history, Optional.of("a")).valid(), is(true));
    }

    @Test
    void anAbsentKeyAfterAnAcknowledgedPutIsALostWrite() {
        Verdict verdict = check(List.of(put("a", 0, 10, Outcome.OK)), Optional.empty());
        assertThat(verdict.lostWrites(), hasSize(1));
    }

    @Test
    void anAbsentKeyIsValidAfterAnAcknowledgedDelete() {
        List<Operation> history = List.of(put("a", 0, 10, Outcome.OK), delete(20, 30, Outcome.OK));
        assertThat(check(history, Optional.empty()).valid(), is(true));
        assertThat(check(history, Optional.of("a")).lostWrites(), hasSize(1));
    }

    @Test
    void aDeleteThatDefinitelyFailedExplainsNothing() {
        List<Operation> history = List.of(put("a", 0, 10, Outcome.OK), delete(20, 30, Outcome.FAIL));
        assertThat(check(history, Optional.empty()).lostWrites(), hasSize(1));
    }

    @Test
    void aValueNeverWrittenIsAPhantomRead() {
        Verdict verdict = check(List.of(put("a", 0, 10, Outcome.OK), get("zzz", 20, 30)), Optional.of("a"));
        assertThat(verdict.phantomReads(), contains("GET by client 1 of k returned zzz, never written to that key"));
    }

    @Test
    void theValueOfAFailedPutIsAPhantomRead() {
        Verdict verdict = check(List.of(put("a", 0, 10, Outcome.FAIL), get("a", 20, 30)), Optional.empty());
        assertThat(verdict.phantomReads(), hasSize(1));
        assertThat(verdict.lostWrites(), empty());
    }

    @Test
    void aKeyWithoutFinalReadIsUnreadable() {
        Verdict verdict = HistoryChecker.check(List.of(put("a", 0, 10, Outcome.OK)), Map.of(), Set.of("k"));
        assertThat(verdict.unreadable(), contains("k"));
        assertThat(verdict.valid(), is(false));
    }

    @Test
    void historyLinesAreJsonWithEscapes() {
        Operation op = new Operation(2, OpType.PUT, "k\"1", "v\n", 1, 5, 6, Outcome.UNKNOWN, "HttpTimeoutException: x");
        assertThat(op.toJson(), is("{\"client\":2,\"type\":\"PUT\",\"key\":\"k\\\"1\",\"value\":\"v\\n\",\"node\":1,"
                + "\"invokeNanos\":5,\"completeNanos\":6,\"outcome\":\"UNKNOWN\",\"detail\":\"HttpTimeoutException: x\"}"));
    }

    @Test
    void aReadOfAValueSupersededBeforeTheReadBeganIsStale() {
        List<Operation> history = List.of(put("a", 0, 10, Outcome.OK), put("b", 20, 30, Outcome.OK), get("a", 40, 50));
        Verdict verdict = check(history, Optional.of("b"));
        assertThat(verdict.staleReads(), hasSize(1));
        assertThat(verdict.staleReads().getFirst(), startsWith("GET by client 1 at 0 ms: k: read 'a', but PUT b"));
        assertThat(verdict.valid(), is(false));
    }

    @Test
    void aReadConcurrentWithTheLaterWriteMaySeeEitherValue() {
        List<Operation> history = List.of(put("a", 0, 10, Outcome.OK), put("b", 20, 45, Outcome.OK),
                get("a", 40, 50), get("b", 25, 35));
        assertThat(check(history, Optional.of("b")).staleReads(), is(empty()));
    }

    @Test
    void aReadOfAbsenceAfterAnAcknowledgedPutIsStaleButNotAfterADelete() {
        assertThat(check(List.of(put("a", 0, 10, Outcome.OK), get(null, 20, 30)), Optional.of("a")).staleReads(), hasSize(1));
        assertThat(check(List.of(put("a", 0, 10, Outcome.OK), delete(12, 15, Outcome.OK), get(null, 20, 30)),
                Optional.empty()).staleReads(), is(empty()));
    }

    @Test
    void staleReadsAreReportedButAllowedWhenTheRunWipedData() {
        List<Operation> history = List.of(put("a", 0, 10, Outcome.OK), put("b", 20, 30, Outcome.OK), get("a", 40, 50));
        Verdict verdict = HistoryChecker.check(history, Map.of("k", new FinalRead("k", Optional.of("b"))), Set.of("k"), true);
        assertThat(verdict.staleReads(), hasSize(1));
        assertThat(verdict.valid(), is(true));
    }
}
