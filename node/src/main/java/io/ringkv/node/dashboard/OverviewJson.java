package io.ringkv.node.dashboard;

import io.ringkv.ops.JsonText;
import java.util.List;
import java.util.Locale;

/**
 * A {@link ClusterOverview.Snapshot} as the JSON of {@code GET /ui/api/cluster}:
 *
 * <pre>{@code
 * {"self":"http://127.0.0.1:8080","at":1764000000000,
 *  "nodes":[{"node":"http://127.0.0.1:8080","self":true,"health":"up","detail":null,"seenBySelf":"self",
 *            "seenForSeconds":null,"uptimeSeconds":42,"version":"0.1.0","warnings":[],
 *            "perSecond":512.3,"p50Millis":0.41,"p99Millis":2.2,"diskBytes":1048576,"metadataEpoch":1}, ...],
 *  "events":[{"node":"http://127.0.0.1:8080","at":1764000000000,"kind":"peer-down",
 *             "subject":"http://127.0.0.1:8082","detail":"probe: ...","count":1}, ...],
 *  "history":[{"at":1764000000000,"perSecond":[512.3,498.0,null],"p50Millis":[...],"p99Millis":[...]}, ...]}
 * }</pre>
 * History arrays are indexed like {@code nodes}; {@code null} where a value is unknown. Only the
 * history points after {@code since} are written, so a page that has the rest asks for the new ones.
 *
 * <p>Stateless.
 */
final class OverviewJson {

    private OverviewJson() {
    }

    static String write(ClusterOverview.Snapshot snapshot, long sinceMillis) {
        StringBuilder out = new StringBuilder(4096);
        out.append("{\"self\":").append(JsonText.string(snapshot.self()))
                .append(",\"at\":").append(snapshot.atMillis())
                .append(",\"nodes\":[");
        List<ClusterOverview.NodeRow> nodes = snapshot.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            ClusterOverview.NodeRow row = nodes.get(i);
            out.append(i == 0 ? "" : ",")
                    .append("{\"node\":").append(JsonText.string(row.node()))
                    .append(",\"self\":").append(row.self())
                    .append(",\"health\":").append(JsonText.string(row.health()))
                    .append(",\"detail\":").append(JsonText.string(row.detail()))
                    .append(",\"seenBySelf\":").append(JsonText.string(row.seenBySelf()))
                    .append(",\"seenForSeconds\":").append(row.seenForSeconds())
                    .append(",\"uptimeSeconds\":").append(row.uptimeSeconds())
                    .append(",\"version\":").append(JsonText.string(row.version()))
                    .append(",\"warnings\":[");
            for (int w = 0; w < row.warnings().size(); w++) {
                out.append(w == 0 ? "" : ",").append(JsonText.string(row.warnings().get(w)));
            }
            out.append("],\"perSecond\":").append(number(row.perSecond()))
                    .append(",\"p50Millis\":").append(number(row.p50Millis()))
                    .append(",\"p99Millis\":").append(number(row.p99Millis()))
                    .append(",\"diskBytes\":").append(row.diskBytes())
                    .append(",\"metadataEpoch\":").append(row.metadataEpoch())
                    .append(",\"member\":").append(JsonText.string(row.member()))
                    .append('}');
        }
        out.append("],\"events\":[");
        List<ClusterOverview.NodeEvent> events = snapshot.events();
        for (int i = 0; i < events.size(); i++) {
            ClusterOverview.NodeEvent event = events.get(i);
            out.append(i == 0 ? "" : ",")
                    .append("{\"node\":").append(JsonText.string(event.node()))
                    .append(",\"at\":").append(event.event().atMillis())
                    .append(",\"kind\":").append(JsonText.string(event.event().kind()))
                    .append(",\"subject\":").append(JsonText.string(event.event().subject()))
                    .append(",\"detail\":").append(JsonText.string(event.event().detail()))
                    .append(",\"count\":").append(event.event().count())
                    .append('}');
        }
        out.append("],\"history\":[");
        boolean first = true;
        for (ClusterOverview.Point point : snapshot.history()) {
            if (point.atMillis() <= sinceMillis) {
                continue;
            }
            out.append(first ? "" : ",")
                    .append("{\"at\":").append(point.atMillis())
                    .append(",\"perSecond\":").append(numbers(point.perSecond()))
                    .append(",\"p50Millis\":").append(numbers(point.p50Millis()))
                    .append(",\"p99Millis\":").append(numbers(point.p99Millis()))
                    .append('}');
            first = false;
        }
        return out.append("]}").toString();
    }

    private static String numbers(double[] values) {
        StringBuilder out = new StringBuilder(values.length * 8).append('[');
        for (int i = 0; i < values.length; i++) {
            out.append(i == 0 ? "" : ",").append(Double.isNaN(values[i]) ? "null" : number(values[i]));
        }
        return out.append(']').toString();
    }

    /** Three decimals are finer than any bucket; JSON has no NaN or infinity, so those are null. */
    private static String number(Double value) {
        if (value == null || value.isNaN() || value.isInfinite()) {
            return "null";
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }
}
