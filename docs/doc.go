// Package docs holds setmatch's documentation (the Markdown pages of this
// folder). Its tests check that ARCHITECTURE.md has a row for every
// package folder and top-level folder, states the imports the code has
// and the import rules it sets, and names files and Go names that exist;
// and that every link of the pages and of the README names a file and a
// heading that exist. The pages are kept true by the test suite, not by
// memory.
package docs
