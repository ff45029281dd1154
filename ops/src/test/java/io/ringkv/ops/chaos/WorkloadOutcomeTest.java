package io.ringkv.ops.chaos;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.chaos.Operation.OpType;
import io.ringkv.ops.chaos.Operation.Outcome;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import org.junit.jupiter.api.Test;

class WorkloadOutcomeTest {

    @Test
    void acknowledgementsAreOk() {
        assertThat(Workload.outcomeOf(OpType.PUT, 201), is(Outcome.OK));
        assertThat(Workload.outcomeOf(OpType.DELETE, 202), is(Outcome.OK));
        assertThat(Workload.outcomeOf(OpType.GET, 404), is(Outcome.OK));
    }

    @Test
    void refusalsBeforeAnyReplicaAreFailures() {
        assertThat(Workload.outcomeOf(OpType.PUT, 503), is(Outcome.FAIL));
        assertThat(Workload.outcomeOf(OpType.PUT, 400), is(Outcome.FAIL));
        assertThat(Workload.outcomeOf(new ConnectException("refused")), is(Outcome.FAIL));
    }

    @Test
    void answersThatMayFollowAReplicaWriteAreUnknown() {
        assertThat(Workload.outcomeOf(OpType.PUT, 504), is(Outcome.UNKNOWN));
        assertThat(Workload.outcomeOf(OpType.DELETE, 500), is(Outcome.UNKNOWN));
        assertThat(Workload.outcomeOf(new HttpTimeoutException("timed out")), is(Outcome.UNKNOWN));
        assertThat(Workload.outcomeOf(new IOException("connection reset")), is(Outcome.UNKNOWN));
    }
}
