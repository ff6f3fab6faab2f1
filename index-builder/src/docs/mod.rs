//! Reading a Docusaurus docs folder.
