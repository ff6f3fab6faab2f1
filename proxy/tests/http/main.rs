//! The proxy driven over HTTP, against the stub upstream: one test binary for every suite, so the
//! proxy and its dependencies are linked once (seven binaries took about a minute more to build).

mod abuse;
mod chat;
mod feedback;
mod lifecycle;
mod limits;
mod postgres;
mod site;
mod support;
