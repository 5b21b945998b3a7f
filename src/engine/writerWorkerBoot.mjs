// Entry of the writer thread (writerThread.ts). A worker thread does not inherit the
// module hooks of the thread that started it: register tsx's loader here, then load the worker.
import { register } from 'tsx/esm/api';

register();
await import('./writerWorker.ts');
