# SPDX-License-Identifier: Apache-2.0
# Written by urom new-plugin: where the urom SDK that wrote this project lies, relative to this
# folder. The Makefile reads it; UROM_HOME, when set, wins.
UROM_HOME ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))@uromHomeFromProject@)
