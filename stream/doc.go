// Package stream splits what a shell reads from a pipe, as it arrives,
// into complete statements ([Split]): a line, or the lines of a
// construct left open (an if, a quote, a here-document), with the exact
// bytes read, so that each can be judged before the real shell gets it.
package stream
