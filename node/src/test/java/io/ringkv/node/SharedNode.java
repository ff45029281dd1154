package io.ringkv.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One node for all the tests of a class (a node's stop waits on its metadata group's Ratis threads
 * for up to a second, so a node per test would cost the class seconds), and a node of its own for
 * each test marked {@link SharedNodeKeys.OwnNode}. A class registers it as a static field,
 * <pre>{@code @RegisterExtension static final SharedNode<Node> NODES = SharedNode.of(data -> NodeConfig.singleNode(0, data));}</pre>
 * and takes its test's node, and the keys that keep the test apart from the others on the shared
 * node, as parameters of a {@code @BeforeEach} method (or of a test): {@code Node},
 * {@link SharedNodeKeys}. A class whose node comes with more (a token file and its tokens) starts
 * a fixture of its own type {@code F} instead, which tests take as a parameter too. With
 * {@code @ParameterizedClass} the shared node serves every invocation of the class.
 *
 * <p>The shared node starts before the class's first test and stops after its {@code @AfterAll};
 * a test's own node stops after its {@code @AfterEach} methods (JUnit closes what the extension
 * keeps in the contexts' stores). Each node gets a new temporary directory, deleted after the node
 * stops.
 *
 * <p>Threading: JUnit calls it from the threads that run the class and its tests; it keeps no
 * state of its own beyond its configuration, everything per class and per test is in JUnit's
 * (thread-safe) stores.
 *
 * @param <F> what a test gets: the node itself, or a fixture around it
 */
final class SharedNode<F> implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedNode.class);
    private static final String SHARED = "shared";
    private static final String OWN = "own";

    /** Starts a fixture in an empty directory of its own. */
    interface Starter<F> {
        F start(Path directory) throws Exception;
    }

    private final Class<F> type;
    private final Starter<F> starter;
    private final Function<F, Node> node;

    /**
     * @param type    the fixture's type, which test parameters ask for
     * @param starter starts a fixture, shared or a test's own
     * @param node    the fixture's node, which closing the fixture stops
     */
    SharedNode(Class<F> type, Starter<F> starter, Function<F, Node> node) {
        this.type = type;
        this.starter = starter;
        this.node = node;
    }

    /** Plain nodes, each configured from its data directory. */
    static SharedNode<Node> of(Function<Path, NodeConfig> config) {
        return new SharedNode<>(Node.class, data -> Node.start(config.apply(data)), started -> started);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        context.getStore(NAMESPACE).put(SHARED, start());
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        boolean own = SharedNodeKeys.ownNode(context.getRequiredTestMethod());
        if (own) {
            // Only in the test's store, which closes it after the test; the shared node is the class store's to close.
            store.put(OWN, start());
        }
        // Made here, before any @BeforeEach method asks for them, so that every parameter of one test gets the same keys.
        store.put(SharedNodeKeys.class, SharedNodeKeys.forNode(own));
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> wanted = parameter.getParameter().getType();
        return wanted == type || wanted == Node.class || wanted == SharedNodeKeys.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        Class<?> wanted = parameter.getParameter().getType();
        if (wanted == SharedNodeKeys.class) {
            return store.get(SharedNodeKeys.class, SharedNodeKeys.class);
        }
        Started<?> own = store.get(OWN, Started.class);
        // A test's store looks up what it lacks in its class's, where the shared node is.
        F fixture = type.cast((own != null ? own : store.get(SHARED, Started.class)).fixture());
        return wanted == type ? fixture : node.apply(fixture);
    }

    private Started<F> start() throws Exception {
        Path directory = Files.createTempDirectory("ringkv-test-node");
        try {
            F fixture = starter.start(directory);
            return new Started<>(fixture, node.apply(fixture), directory);
        } catch (Exception | Error notStarted) {
            deleteTree(directory);
            throw notStarted;
        }
    }

    private static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        } catch (UncheckedIOException walkFailed) {
            throw walkFailed.getCause();
        }
    }

    /** A fixture, its node and its directory: the store that holds it stops the node, then deletes the directory. */
    private record Started<F>(F fixture, Node node, Path directory) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            node.close();
            deleteTree(directory);
        }
    }
}
