// The browser tests' upstream is the proxy crate's Rust stub (`stub-upstream --scenario cite`),
// started by the harness; this module keeps the old import path for the test files.
export {startStub, ANSWER_CHUNKS} from './harness.mjs';
