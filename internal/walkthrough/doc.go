// Package walkthrough holds tests that do what the documentation tells a
// new user to do, exactly as it is written there, on a clean copy of the
// repository: the README's set-up and quick-start commands, and the CI
// recipes of docs/ci.md. The commands are read from the documents, so a
// test fails when a document drifts from what works. It has no code.
package walkthrough
