/** An example of a system of your own under partkit verify: a provider, a system, a client. */
package example.register;
