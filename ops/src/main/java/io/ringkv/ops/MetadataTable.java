package io.ringkv.ops;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cluster metadata as {@code ringkv status} prints it under the node table: the epoch, the
 * leader of the metadata group, the replication factor and each member's state, read from the
 * {@code metadata} object of a node's {@code /v0/status}.
 */
public final class MetadataTable {

    private static final String STRING = "\"((?:[^\"\\\\]|\\\\.)*)\"";
    private static final Pattern MEMBER = Pattern.compile("\\{\"id\":" + STRING + ",\"url\":" + STRING + ",\"state\":" + STRING
            + "(?:,\"index\":\\d+)?}");
    /** The node's own join or decommission, when it runs one. */
    private static final Pattern MEMBERSHIP = Pattern.compile("\"membership\":\\{\"step\":" + STRING + ",\"phase\":" + STRING
            + ",\"epoch\":\\d+,\"records\":(\\d+),\"bytes\":(\\d+)");

    /** A member as the status names it. */
    record Member(String id, String url, String state) {
    }

    /**
     * The node's own join or decommission as its status names it: the step, its phase, what it
     * handed over so far, and the status's text from the step's start on (for its estimate).
     */
    public record OwnStep(String step, String phase, long records, long bytes, String json) {
    }

    /** The step the node runs itself, read from its {@code /v0/status}; empty when it runs none. */
    public static Optional<OwnStep> ownStep(String statusBody) {
        Matcher own = MEMBERSHIP.matcher(statusBody);
        if (!own.find() || own.group(1).equals("none")) {
            return Optional.empty();
        }
        return Optional.of(new OwnStep(JsonText.unescape(own.group(1)), JsonText.unescape(own.group(2)),
                Long.parseLong(own.group(3)), Long.parseLong(own.group(4)), statusBody.substring(own.start())));
    }

    private final long epoch;
    private final String leader;
    private final long replicationFactor;
    private final List<Member> members;
    /** "join streaming: 123 records, 4567 bytes", or null without a step of the node's own. */
    private String ownStep;

    private MetadataTable(long epoch, String leader, long replicationFactor, List<Member> members) {
        this.epoch = epoch;
        this.leader = leader;
        this.replicationFactor = replicationFactor;
        this.members = members;
    }

    /** Empty when the status has no metadata object (a node of an older version). */
    static Optional<MetadataTable> parse(String statusBody) {
        int start = statusBody.indexOf("\"metadata\":{");
        if (start < 0) {
            return Optional.empty();
        }
        String metadata = statusBody.substring(start);
        long epoch = JsonText.numberField(metadata, "epoch").map(Double::longValue).orElse(0L);
        long factor = JsonText.numberField(metadata, "replicationFactor").map(Double::longValue).orElse(0L);
        String leader = JsonText.stringField(metadata.substring(0, Math.max(0, metadata.indexOf("\"members\""))), "leader")
                .orElse(null);
        List<Member> members = new ArrayList<>();
        Matcher m = MEMBER.matcher(metadata);
        while (m.find()) {
            members.add(new Member(JsonText.unescape(m.group(1)), JsonText.unescape(m.group(2)), JsonText.unescape(m.group(3))));
        }
        MetadataTable table = new MetadataTable(epoch, leader, factor, members);
        table.ownStep = ownStep(metadata).map(step -> step.step() + " " + step.phase() + ": " + step.records()
                + " records, " + step.bytes() + " bytes handed over" + timeLeft(step.json())).orElse(null);
        return Optional.of(table);
    }

    /** ", about 12 s left" while a step's hand-over has an estimate ({@code secondsLeft}), else nothing. */
    public static String timeLeft(String membershipJson) {
        long seconds = JsonText.numberField(membershipJson, "secondsLeft").map(Double::longValue).orElse(-1L);
        return seconds < 0 ? "" : ", about " + seconds + " s left";
    }

    List<Member> members() {
        return members;
    }

    void print(PrintWriter out) {
        String leaderText = leader == null ? "none known (metadata changes wait; data requests do not)"
                : leader + members.stream().filter(member -> member.id().equals(leader)).map(member -> " (" + member.url() + ")")
                        .findFirst().orElse("");
        out.println();
        out.println("metadata epoch " + epoch + ", leader " + leaderText + ", replication factor " + replicationFactor);
        if (members.isEmpty()) {
            out.println("  no members yet: the metadata group has not formed the cluster (it needs a majority of its voters)");
            return;
        }
        int idWidth = Math.max("MEMBER".length(), members.stream().mapToInt(member -> member.id().length()).max().orElse(0));
        int urlWidth = Math.max("URL".length(), members.stream().mapToInt(member -> member.url().length()).max().orElse(0));
        String format = "  %-" + idWidth + "s  %-" + urlWidth + "s  %s%n";
        out.printf(format, "MEMBER", "URL", "STATE");
        for (Member member : members) {
            out.printf(format, member.id(), member.url(), member.state());
        }
        if (ownStep != null) {
            out.println("  this node's " + ownStep);
        }
    }
}
