package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Ways to cut a wire image into reads; every codec test runs under each of them. */
public enum Chunking {
    WHOLE,
    ONE_BYTE,
    SPLIT_AT_EVERY_OFFSET;

    /** Each plan is one sequence of reads that together deliver {@code wire}. */
    public List<List<ByteBuffer>> plans(ByteBuffer wire) {
        byte[] bytes = new byte[wire.remaining()];
        wire.duplicate().get(bytes);
        List<List<ByteBuffer>> plans = new ArrayList<>();
        switch (this) {
            case WHOLE -> plans.add(List.of(ByteBuffer.wrap(bytes.clone())));
            case ONE_BYTE -> {
                List<ByteBuffer> reads = new ArrayList<>();
                for (byte b : bytes) {
                    reads.add(ByteBuffer.wrap(new byte[] {b}));
                }
                plans.add(reads);
            }
            case SPLIT_AT_EVERY_OFFSET -> {
                for (int cut = 0; cut <= bytes.length; cut++) {
                    plans.add(List.of(ByteBuffer.wrap(bytes, 0, cut).slice(),
                            ByteBuffer.wrap(bytes.clone(), cut, bytes.length - cut).slice()));
                }
            }
        }
        return plans;
    }
}
