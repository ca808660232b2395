//! Integration tests: real git repositories in temp dirs, the real binary, the real SQLite
//! and LanceDB stores.

mod agents;
mod assets;
mod bad_input;
mod branches;
mod common;
mod companion;
mod concepts;
mod constants;
mod crash;
mod definitions;
mod described;
mod doctor;
mod embed_server;
mod focus;
mod history;
mod hooks;
mod hostile;
mod layers;
mod lines;
mod llm;
mod mcp;
mod observe;
mod poisoned;
mod remote;
mod remote_clone;
mod remote_more;
mod rev;
mod s3server;
mod search;
mod share;
mod spread;
mod trust;
mod untrusted;
mod vectors;
mod verbs;
