//go:build !linux

package gpio

import (
	"errors"
	"runtime"
	"unsafe"
)

// The GPIO character device is Linux's: elsewhere the periph backend finds
// no lines (periph.io finds no chips), and these say so should one be
// requested all the same.

var errNoCdev = errors.New("the GPIO character device is Linux only, not on " + runtime.GOOS)

func requestOutput(lineSys, string, uint32, string, bool) (int, error) { return -1, errNoCdev }

func setValue(lineSys, int, bool) error { return errNoCdev }

type hostSys struct{}

func (hostSys) open(string) (int, error)                 { return -1, errNoCdev }
func (hostSys) ioctl(int, uintptr, unsafe.Pointer) error { return errNoCdev }
func (hostSys) close(int) error                          { return errNoCdev }
