"""The record viewer: self-contained HTML pages of game records, made from the records and the engine alone."""
