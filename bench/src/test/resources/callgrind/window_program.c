/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What CallgrindPartsTest runs under callgrind: window_program N adds N numbers before the window
 * (not counted), and in it starts a thread that adds 5000, waits until that thread has added them
 * (so that they fall in the window whatever valgrind's scheduling), adds N itself, closes the window
 * while the thread still waits, then lets the thread end and adds N more (not counted).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void urom_callgrind_window_open(void);
void urom_callgrind_window_close(void);

static volatile long total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t window_closed = PTHREAD_COND_INITIALIZER;
static pthread_cond_t background_added = PTHREAD_COND_INITIALIZER;
static int closed;
static int added;

static void add(long n)
{
	for (long i = 0; i < n; i++) {
		total += i;
	}
}

static void *background(void *unused)
{
	(void)unused;
	add(5000);
	pthread_mutex_lock(&lock);
	added = 1;
	pthread_cond_signal(&background_added);
	while (!closed) {
		pthread_cond_wait(&window_closed, &lock);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: window_program N\n");
		return 2;
	}
	long n = atol(argv[1]);
	pthread_t thread;
	add(n);
	urom_callgrind_window_open();
	if (pthread_create(&thread, NULL, background, NULL) != 0) {
		return 1;
	}
	pthread_mutex_lock(&lock);
	while (!added) {
		pthread_cond_wait(&background_added, &lock);
	}
	pthread_mutex_unlock(&lock);
	add(n);
	urom_callgrind_window_close();
	pthread_mutex_lock(&lock);
	closed = 1;
	pthread_cond_signal(&window_closed);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	add(n);
	printf("added %ld\n", 3 * n + 5000);
	return 0;
}
