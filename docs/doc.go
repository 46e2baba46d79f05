// Package docs holds setmatch's documentation (the Markdown pages of this
// folder). Its test checks that ARCHITECTURE.md states the imports the
// code has, and the import rules it sets: the page is kept true by the
// test suite, not by memory.
package docs
