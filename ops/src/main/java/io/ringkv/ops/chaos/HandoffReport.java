package io.ringkv.ops.chaos;

import io.ringkv.ops.JsonText;
import io.ringkv.ops.chaos.HandoffRun.Progress;
import io.ringkv.ops.chaos.HandoffRun.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A {@link HandoffRun}'s result as JSON and as a few lines for a person, with the figures derived
 * from the hint samples (hints replayed between the heal and the catch-up, the mean and the
 * highest one-second replay rate) and the verdict against a target catch-up time.
 *
 * <p>Threading: immutable.
 */
public final class HandoffReport {
    private final Result result;
    private final Duration target;

    public HandoffReport(Result result, Duration target) {
        this.result = result;
        this.target = target;
    }

    public boolean targetMet() {
        return result.caughtUp() && result.catchUpMillis() <= target.toMillis();
    }

    /**
     * Hints the writing nodes replayed from the heal to the catch-up (or the end of the run): from
     * the last sample before the heal to the first after the catch-up, so at most about a second more.
     */
    long replayedDuringCatchUp() {
        return fullSampleFrom(catchUpEndMillis()).replayed() - fullSampleAt(result.heal().startMillis()).replayed();
    }

    /** {@link #replayedDuringCatchUp} per second between the two samples it is taken from. */
    double meanReplayPerSecond() {
        long millis = fullSampleFrom(catchUpEndMillis()).atMillis() - fullSampleAt(result.heal().startMillis()).atMillis();
        return millis > 0 ? replayedDuringCatchUp() * 1000.0 / millis : 0;
    }

    /** The highest increase of hints replayed between two consecutive samples from the heal on, per second. */
    double peakReplayPerSecond() {
        double peak = 0;
        List<HintSampler.Sample> samples = result.hints();
        for (int i = 1; i < samples.size(); i++) {
            HintSampler.Sample before = samples.get(i - 1);
            HintSampler.Sample after = samples.get(i);
            if (before.atMillis() >= result.heal().startMillis() - 1000 && !before.partial() && !after.partial()
                    && after.atMillis() > before.atMillis()) {
                peak = Math.max(peak, (after.replayed() - before.replayed()) * 1000.0 / (after.atMillis() - before.atMillis()));
            }
        }
        return peak;
    }

    private long catchUpEndMillis() {
        return result.caughtUp() ? result.heal().startMillis() + result.catchUpMillis() : result.writingMillis();
    }

    /** The last sample at or before {@code atMillis} that every node answered; all zero before the first. */
    private HintSampler.Sample fullSampleAt(long atMillis) {
        HintSampler.Sample found = new HintSampler.Sample(0, 0, 0, 0, 0, 0, true);
        for (HintSampler.Sample sample : result.hints()) {
            if (sample.atMillis() > atMillis) {
                break;
            }
            if (!sample.partial()) {
                found = sample;
            }
        }
        return found;
    }

    /** The first sample at or after {@code atMillis} that every node answered; else the last one. */
    private HintSampler.Sample fullSampleFrom(long atMillis) {
        for (HintSampler.Sample sample : result.hints()) {
            if (sample.atMillis() >= atMillis && !sample.partial()) {
                return sample;
            }
        }
        return fullSampleAt(Long.MAX_VALUE);
    }

    private long hintsQueuedAt(long atMillis) {
        return fullSampleAt(atMillis).queued();
    }

    public List<String> summary() {
        HandoffRun.Settings s = result.settings();
        double catchUpSeconds = result.catchUpMillis() / 1e3;
        double writingSeconds = result.writingMillis() / 1e3;
        HintSampler.Sample last = fullSampleAt(Long.MAX_VALUE);
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "partition of %s (node %d of 3) for %.0f s under %.0f writes/s (achieved %.0f/s), seed %d",
                result.partitionedNode(), s.partitioned(), s.partition().toMillis() / 1e3, s.writesPerSecond(),
                result.issued() / writingSeconds, s.seed()));
        lines.add(String.format(Locale.ROOT, "writes acknowledged: %d before the cut, %d during the partition; %d failed in the whole run",
                result.ackedBeforeCut(), result.ackedDuringPartition(), result.failed()));
        lines.add(String.format(Locale.ROOT, "links cut in %.1f s, restored in %.1f s (times below count from the start of the restore)",
                (result.cut().doneMillis() - result.cut().startMillis()) / 1e3,
                (result.heal().doneMillis() - result.heal().startMillis()) / 1e3));
        lines.add(String.format(Locale.ROOT, "missing on the partitioned node at the heal: %d (hints queued then: %d)",
                result.missingAtHeal(), hintsQueuedAt(result.heal().startMillis())));
        lines.add(result.caughtUp()
                ? String.format(Locale.ROOT, "held every acknowledged write %.1f s after the heal", catchUpSeconds)
                : String.format(Locale.ROOT, "did NOT hold every acknowledged write within %d s of the heal: %d still missing",
                        s.catchUpTimeout().toSeconds(), result.stillMissing()));
        lines.add(String.format(Locale.ROOT, "hints replayed from the heal to then: %d (mean %.0f/s, peak %.0f/s over 1 s); "
                        + "stored in the run %d, dropped %d; anti-entropy rounds %d",
                replayedDuringCatchUp(), meanReplayPerSecond(),
                peakReplayPerSecond(), last.stored(), last.dropped(), last.antiEntropyRounds()));
        lines.add(String.format(Locale.ROOT, "target (every write within %d s of the heal, through hints alone): %s",
                target.toSeconds(), targetMet() ? "MET" : "MISSED"));
        return lines;
    }

    public String json() {
        HandoffRun.Settings s = result.settings();
        StringBuilder out = new StringBuilder("{\n");
        field(out, "partitionSeconds", s.partition().toMillis() / 1e3);
        field(out, "warmUpSeconds", s.warmUp().toMillis() / 1e3);
        field(out, "writesPerSecond", s.writesPerSecond());
        field(out, "seed", s.seed());
        field(out, "catchUpTimeoutSeconds", s.catchUpTimeout().toMillis() / 1e3);
        field(out, "targetSeconds", target.toMillis() / 1e3);
        field(out, "antiEntropyInterval", JsonText.string(HandoffRun.ANTI_ENTROPY_INTERVAL.toString()));
        field(out, "partitionedNode", JsonText.string(result.partitionedNode()));
        field(out, "writeNodes", "[" + String.join(",", result.writeNodes().stream().map(JsonText::string).toList()) + "]");
        field(out, "writesIssued", result.issued());
        field(out, "writesAcknowledged", result.acknowledged());
        field(out, "writesFailed", result.failed());
        field(out, "writingSeconds", result.writingMillis() / 1e3);
        field(out, "ackedBeforeCut", result.ackedBeforeCut());
        field(out, "ackedDuringPartition", result.ackedDuringPartition());
        field(out, "expected", result.expected());
        field(out, "missingAtHeal", result.missingAtHeal());
        field(out, "caughtUp", result.caughtUp());
        field(out, "catchUpSeconds", result.caughtUp() ? result.catchUpMillis() / 1e3 : null);
        field(out, "stillMissing", result.stillMissing());
        field(out, "hintsQueuedAtHeal", hintsQueuedAt(result.heal().startMillis()));
        field(out, "hintsReplayedDuringCatchUp", replayedDuringCatchUp());
        field(out, "meanReplayPerSecond", meanReplayPerSecond());
        field(out, "peakReplayPerSecond", peakReplayPerSecond());
        field(out, "targetMet", targetMet());
        field(out, "cutStartMillis", result.cut().startMillis());
        field(out, "cutDoneMillis", result.cut().doneMillis());
        field(out, "healStartMillis", result.heal().startMillis());
        field(out, "healDoneMillis", result.heal().doneMillis());
        field(out, "summary", "[" + String.join(",", summary().stream().map(JsonText::string).toList()) + "]");
        List<String> progress = new ArrayList<>();
        for (Progress p : result.progress()) {
            progress.add("[" + p.sinceHealMillis() + "," + p.missing() + "]");
        }
        field(out, "catchUpProgress_sinceHealMillis_missing", "[" + String.join(",", progress) + "]");
        List<String> hints = new ArrayList<>();
        for (HintSampler.Sample h : result.hints()) {
            hints.add("[" + h.atMillis() + "," + h.queued() + "," + h.stored() + "," + h.replayed() + "," + h.dropped() + ","
                    + h.antiEntropyRounds() + "," + h.partial() + "]");
        }
        out.append(" \"hintSamples_atMillis_queued_stored_replayed_dropped_antiEntropyRounds_partial\": [")
                .append(String.join(",\n  ", hints)).append("]\n}\n");
        return out.toString();
    }

    private static void field(StringBuilder out, String name, Object value) {
        out.append(' ').append(JsonText.string(name)).append(": ").append(value == null ? "null" : value.toString()).append(",\n");
    }
}
