package io.ringkv.cluster;

import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * A real engine seen through a proxy, for tests that watch what a component does with it (the
 * bytes a scan holds) or change how it behaves (a slow disk): each call's result passes through
 * {@link Calls}, and a range cursor can be wrapped so that each step is reported.
 */
final class WatchedEngine {

    /** Sees each call once it returned; what it returns is what the caller gets. */
    @FunctionalInterface
    interface Calls {
        Object returned(Method method, Object[] args, Object result);
    }

    /** Told of each step of a cursor, once it was taken. */
    @FunctionalInterface
    interface Steps {
        void stepped(RangeCursor cursor, boolean more);
    }

    private WatchedEngine() {
    }

    static StorageEngine of(StorageEngine engine, Calls calls) {
        return (StorageEngine) Proxy.newProxyInstance(StorageEngine.class.getClassLoader(), new Class<?>[] {StorageEngine.class},
                (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(engine, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    return calls.returned(method, args, result);
                });
    }

    /** {@code cursor}, telling {@code steps} of each step it takes. */
    static RangeCursor stepping(RangeCursor cursor, Steps steps) {
        return new RangeCursor() {
            @Override
            public boolean next() throws StoreException {
                boolean more = cursor.next();
                steps.stepped(cursor, more);
                return more;
            }

            @Override
            public byte[] key() {
                return cursor.key();
            }

            @Override
            public Record record() {
                return cursor.record();
            }

            @Override
            public void close() {
                cursor.close();
            }
        };
    }
}
