package io.ringkv.store;

import java.nio.file.Path;

class InMemoryStorageEngineTest extends StorageEngineContractTest {

    @Override
    StorageEngine openEngine(Path dir) {
        return new InMemoryStorageEngine();
    }
}
