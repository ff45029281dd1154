package io.ringkv.node;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.TestInfo;

/**
 * The keys of one test on a node that the tests of its class share (started once per class, as a
 * node's stop waits on its metadata group's Ratis threads for up to a second): every key the test
 * names in an entity target ({@code /v0/entity?id=...}) gets a prefix no other test has, so a
 * test sees none of the keys another wrote, whatever ran before it. A test that must see the whole
 * key space (an open or listed range, the longest key) or changes the node (its token file) is
 * marked {@link OwnNode}, gets a node of its own as before, and keys without a prefix. The
 * {@link SharedNode} extension starts both kinds of node and hands out a test's keys.
 *
 * <p>Threading: one instance per test, used by its thread; the numbering is thread-safe.
 */
final class SharedNodeKeys {

    /** The test gets a node of its own, started and stopped around it, instead of its class's shared one. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface OwnNode {
    }

    private static final AtomicInteger TESTS = new AtomicInteger();
    private static final String ENTITY = "/v0/entity?";

    private final String prefix;

    private SharedNodeKeys(String prefix) {
        this.prefix = prefix;
    }

    /** Whether the test is marked {@link OwnNode}. */
    static boolean ownNode(TestInfo test) {
        return test.getTestMethod().map(SharedNodeKeys::ownNode).orElse(false);
    }

    /** Whether the test method is marked {@link OwnNode}. */
    static boolean ownNode(Method test) {
        return test.isAnnotationPresent(OwnNode.class);
    }

    /** The keys of {@code test}: unprefixed on a node of its own, under a fresh prefix on the shared node. */
    static SharedNodeKeys of(TestInfo test) {
        return forNode(ownNode(test));
    }

    /** The keys of a test on a node of its own ({@code own}: unprefixed) or on the shared node (under a fresh prefix). */
    static SharedNodeKeys forNode(boolean own) {
        return new SharedNodeKeys(own ? "" : "t" + TESTS.incrementAndGet() + "-");
    }

    /**
     * {@code target} with every non-empty {@code id} of an entity target prefixed; any other target,
     * and an empty or absent {@code id} (which the node refuses either way), unchanged.
     */
    String target(String target) {
        if (prefix.isEmpty() || !target.startsWith(ENTITY)) {
            return target;
        }
        String[] parameters = target.substring(ENTITY.length()).split("&", -1);
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].startsWith("id=") && parameters[i].length() > "id=".length()) {
                parameters[i] = "id=" + prefix + parameters[i].substring("id=".length());
            }
        }
        return ENTITY + String.join("&", parameters);
    }
}
