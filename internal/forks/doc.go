// Package forks holds the tests of what tradedeck's forks of ultraviolet
// and bubbletea (third_party/, see its README) must keep doing: cells
// that pin no frames, one key table per kind of terminal, and programs
// that hold one screen of cells between frames. The forks' own upstream
// tests run in `make test` too.
package forks
